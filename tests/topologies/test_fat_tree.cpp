// tests/topologies/test_fat_tree.cpp
#include <catch2/catch.hpp>
