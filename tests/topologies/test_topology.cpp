// tests/topologies/test_topology.cpp
#include <catch2/catch.hpp>
