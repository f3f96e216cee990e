topo --catalog
