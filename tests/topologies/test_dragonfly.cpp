// tests/topologies/test_dragonfly.cpp
#include <catch2/catch.hpp>
