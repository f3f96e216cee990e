predict --preset dgx-h100-superpod-su --bytes 1M,1G --algo ring,two-tree,hierarchical-ring --engine analytic
