// tests/base/test_units.cpp — sizes as people write them (base/units.hpp).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "base/error.hpp"
#include "base/units.hpp"

using collsim::Error;
using collsim::format_seconds;
using collsim::format_size;
using collsim::parse_size;
using collsim::parse_name_list;
using collsim::parse_size_list;

namespace {

constexpr std::uint64_t K = 1024, M = K * K, G = M * K;

}  // namespace

TEST_CASE("parse_size reads plain byte counts", "[units]") {
  CHECK(parse_size("0") == 0);
  CHECK(parse_size("1") == 1);
  CHECK(parse_size("4096") == 4096);
  CHECK(parse_size("1000000") == 1000000);
}

TEST_CASE("parse_size reads K, M and G as powers of 1024 in either case", "[units]") {
  CHECK(parse_size("64K") == 65536);
  CHECK(parse_size("64k") == 65536);
  CHECK(parse_size("1K") == K);
  CHECK(parse_size("1M") == M);
  CHECK(parse_size("1m") == M);
  CHECK(parse_size("64M") == 64 * M);
  CHECK(parse_size("1G") == G);
  CHECK(parse_size("4g") == 4 * G);
}

TEST_CASE("parse_size takes a decimal that makes whole bytes, and refuses a fraction of a byte", "[units]") {
  CHECK(parse_size("1.5K") == 1536);
  CHECK(parse_size("0.5M") == 512 * K);
  CHECK(parse_size("2.5G") == 5 * G / 2);
  CHECK_THROWS_WITH(parse_size("0.4"), Catch::Contains("0.4 bytes is not a whole number of bytes"));
  CHECK_THROWS_WITH(parse_size("4.5"), Catch::Contains("not a whole number of bytes"));
  CHECK_THROWS_WITH(parse_size("1.0001K"), Catch::Contains("1024.1024 bytes is not a whole number"));
}

TEST_CASE("parse_size ignores surrounding blanks", "[units]") {
  CHECK(parse_size(" 64K") == 65536);
  CHECK(parse_size("64K\t") == 65536);
}

TEST_CASE("parse_size rejects negative, empty, malformed and oversized sizes with one-line errors", "[units]") {
  for (const char* bad : {"-4", "-1K", "abc", "", "   ", "1X", "1K:0", "K", "1KK", "4 K", "1,2", "nan", "inf",
                          "0x10", "1e30", "18446744073709551615", "99999999999G"}) {
    INFO("input '" << bad << "'");
    try {
      (void)parse_size(bad);
      FAIL("parse_size accepted '" << bad << "'");
    } catch (const Error& e) {
      const std::string message = e.what();
      CHECK(message.find("invalid size") != std::string::npos);
      CHECK(message.find('\n') == std::string::npos);
    }
  }
}

TEST_CASE("parse_size names the reason a size is rejected", "[units]") {
  CHECK_THROWS_WITH(parse_size("-4"), Catch::Contains("negative"));
  CHECK_THROWS_WITH(parse_size(""), Catch::Contains("empty"));
  CHECK_THROWS_WITH(parse_size("abc"), Catch::Contains("'abc'") && Catch::Contains("not a number"));
  CHECK_THROWS_WITH(parse_size("1e30"), Catch::Contains("too large"));
}

TEST_CASE("parse_size_list reads comma-separated sizes in order", "[units]") {
  CHECK(parse_size_list("1K,64M") == std::vector<std::uint64_t>{K, 64 * M});
  CHECK(parse_size_list("4096") == std::vector<std::uint64_t>{4096});
  CHECK(parse_size_list("8,1") == std::vector<std::uint64_t>{8, 1});
}

TEST_CASE("parse_size_list refuses a size listed twice and empty items", "[units]") {
  CHECK_THROWS_WITH(parse_size_list("8,1,8"), Catch::Contains("8 is listed twice"));
  CHECK_THROWS_WITH(parse_size_list("1K,1024"), Catch::Contains("1K is listed twice"));
  CHECK_THROWS_WITH(parse_size_list("1K:4K,2K"), Catch::Contains("2K is listed twice"));
  CHECK_THROWS_WITH(parse_size_list("1K,"), Catch::Contains("empty"));
}

TEST_CASE("parse_size keeps whole numbers exact up to 2^63 - 1", "[units]") {
  CHECK(parse_size("9223372036854775807") == 9223372036854775807ull);
  CHECK(parse_size("9007199254740993") == 9007199254740993ull);  // 2^53 + 1: a double would round it
  CHECK(parse_size("8589934591G") == 8589934591ull << 30);
  CHECK_THROWS_WITH(parse_size("9223372036854775808"), Catch::Contains("too large"));
  CHECK_THROWS_WITH(parse_size("8589934592G"), Catch::Contains("too large"));
}

TEST_CASE("parse_name_list splits names and refuses empty or repeated ones", "[units]") {
  CHECK(parse_name_list("ring, two-tree", "algorithm") == std::vector<std::string>{"ring", "two-tree"});
  CHECK_THROWS_WITH(parse_name_list("ring,ring", "algorithm"), Catch::Contains("'ring' is named twice"));
  CHECK_THROWS_WITH(parse_name_list("ring,,tree", "algorithm"), Catch::Contains("empty name"));
  CHECK_THROWS_WITH(parse_name_list("", "algorithm"), Catch::Contains("empty name"));
}

TEST_CASE("parse_size_list expands A:B to every power-of-two multiple of A up to B", "[units]") {
  CHECK(parse_size_list("1K:8K") == std::vector<std::uint64_t>{K, 2 * K, 4 * K, 8 * K});
  CHECK(parse_size_list("1K:1K") == std::vector<std::uint64_t>{K});
  CHECK(parse_size_list("3K:13K") == std::vector<std::uint64_t>{3 * K, 6 * K, 12 * K});
  CHECK(parse_size_list("1K:1M").size() == 11);
  CHECK(parse_size_list("8,1K:4K,1G") == std::vector<std::uint64_t>{8, K, 2 * K, 4 * K, G});
}

TEST_CASE("parse_size_list stops a range at B, the largest size included", "[units]") {
  // 8589934591G = 2^63 - 2^30, the largest whole-G size: 3 * 2^61 fits below it, 3 * 2^62 not.
  const std::vector<std::uint64_t> sizes = parse_size_list("3:8589934591G");
  REQUIRE(sizes.size() == 62);
  CHECK(sizes.back() == std::uint64_t(3) << 61);
  for (std::size_t i = 1; i < sizes.size(); ++i) CHECK(sizes[i] == 2 * sizes[i - 1]);
  CHECK(parse_size_list("8G:8589934591G").back() == std::uint64_t(1) << 62);
}

TEST_CASE("parse_size_list rejects empty items, empty or reversed ranges and bad sizes", "[units]") {
  for (const char* bad : {"", ",", "1K,", ",1K", "1K,,2K", "1K:0", "0:8K", "8K:1K", "1K:abc", "1K:", ":1K", "-4",
                          "1K,1X"}) {
    INFO("input '" << bad << "'");
    try {
      (void)parse_size_list(bad);
      FAIL("parse_size_list accepted '" << bad << "'");
    } catch (const Error& e) {
      CHECK(std::string(e.what()).find('\n') == std::string::npos);
    }
  }
  CHECK_THROWS_WITH(parse_size_list("8K:1K"), Catch::Contains("'8K:1K'"));
}

TEST_CASE("format_size prints exact binary multiples with a suffix and anything else in full", "[units]") {
  CHECK(format_size(0) == "0");
  CHECK(format_size(1) == "1");
  CHECK(format_size(1000) == "1000");
  CHECK(format_size(1536) == "1536");
  CHECK(format_size(K) == "1K");
  CHECK(format_size(4096) == "4K");
  CHECK(format_size(65536) == "64K");
  CHECK(format_size(M) == "1M");
  CHECK(format_size(64 * M) == "64M");
  CHECK(format_size(G) == "1G");
  CHECK(format_size(1024 * G) == "1T");
  CHECK(format_size(1200000000) == "1200000000");
  CHECK(format_size(9999 * K) == "9999K");
  CHECK(format_size(10000 * K) == "10240000");  // long mantissas print in full
}

TEST_CASE("format_size output parses back to the same number of bytes", "[units]") {
  for (std::uint64_t bytes : {std::uint64_t(0), std::uint64_t(7), K, 3 * K, 1536 * K, 64 * M, 5 * G, 9999 * K,
                              10000 * K, std::uint64_t(1200000000)}) {
    INFO("bytes " << bytes << " printed as " << format_size(bytes));
    CHECK(parse_size(format_size(bytes)) == bytes);
  }
}

TEST_CASE("format_seconds picks a readable unit with three significant digits", "[units]") {
  CHECK(format_seconds(0) == "0 s");
  CHECK(format_seconds(5e-9) == "5 ns");
  CHECK(format_seconds(12.3e-6) == "12.3 us");
  CHECK(format_seconds(0.405) == "405 ms");
  CHECK(format_seconds(2.5) == "2.5 s");
}

TEST_CASE("parse_rate reads bits and bytes per second with decimal prefixes, as datasheets write them", "[units]") {
  using collsim::parse_rate;
  CHECK(parse_rate("400Gbps") == Approx(50.0e9));
  CHECK(parse_rate("400Gb/s") == Approx(50.0e9));
  CHECK(parse_rate("400 Gb/s") == Approx(50.0e9));
  CHECK(parse_rate("50GB/s") == Approx(50.0e9));
  CHECK(parse_rate("50GBps") == Approx(50.0e9));
  CHECK(parse_rate("1.8TB/s") == Approx(1.8e12));
  CHECK(parse_rate("12.8Tbps") == Approx(1.6e12));
  CHECK(parse_rate("100Mbps") == Approx(12.5e6));
  CHECK(parse_rate("250MB/s") == Approx(250.0e6));
  CHECK(parse_rate("8kbps") == Approx(1.0e3));
  CHECK(parse_rate("3KB/s") == Approx(3.0e3));
  CHECK(parse_rate("8bps") == Approx(1.0));
  CHECK(parse_rate("6B/s") == Approx(6.0));
  CHECK(parse_rate("6.0e+9") == Approx(6.0e9));  // a bare number is bytes/s
}

TEST_CASE("parse_duration reads seconds, milliseconds, microseconds and nanoseconds", "[units]") {
  using collsim::parse_duration;
  CHECK(parse_duration("1s") == Approx(1.0));
  CHECK(parse_duration("1ms") == Approx(1.0e-3));
  CHECK(parse_duration("2us") == Approx(2.0e-6));
  CHECK(parse_duration("0.5us") == Approx(0.5e-6));
  CHECK(parse_duration("100ns") == Approx(100.0e-9));
  CHECK(parse_duration("100 ns") == Approx(100.0e-9));
  CHECK(parse_duration("2.0e-6") == Approx(2.0e-6));  // a bare number is seconds
}

TEST_CASE("a rate or time in a wrong unit is an error naming the text and the accepted forms", "[units]") {
  using collsim::parse_duration;
  using collsim::parse_rate;
  for (const char* bad : {"50GB", "fastGbps", "Gbps", "400 Gbit", "2us", "400gbps", "1e9 B/s/s", ""}) {
    INFO(bad);
    REQUIRE_THROWS_WITH(parse_rate(bad), Catch::Contains(std::string("'") + bad + "' is not a rate") &&
                                             Catch::Contains("400Gbps") && Catch::Contains("50GB/s"));
  }
  for (const char* bad : {"2 parsecs", "2uS", "100Gbps", "us", "1 h", "5x"}) {
    INFO(bad);
    REQUIRE_THROWS_WITH(parse_duration(bad), Catch::Contains(std::string("'") + bad + "' is not a time") &&
                                                 Catch::Contains("2us") && Catch::Contains("100ns"));
  }
}
