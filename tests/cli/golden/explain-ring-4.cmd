explain ring --ranks 4
