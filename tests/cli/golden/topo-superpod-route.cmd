topo --preset dgx-h100-superpod-su --route 0,9
