predict --preset fat-tree-2to1 --engine flow --algo ring,two-tree,hierarchical-ring --bytes 1M,1G
