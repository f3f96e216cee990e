// tests/topologies/test_network.cpp
#include <catch2/catch.hpp>
