// tests/main.cpp — Catch2's main, compiled once per test executable.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
