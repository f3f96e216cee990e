// tests/topologies/test_direct_networks.cpp
#include <catch2/catch.hpp>
