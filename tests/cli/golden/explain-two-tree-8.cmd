explain two-tree --ranks 8 --segments 1
