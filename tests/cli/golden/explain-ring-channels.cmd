explain ring --ranks 8 --ranks-per-node 4 --channels 2
