// tests/topologies/test_nodes.cpp
#include <catch2/catch.hpp>
