// The capped reader for host-supplied files: regular files only, never blocking, never
// reading past its cap.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "core/file.hpp"
#include "spawn.hpp"

using core::FileError;
using core::read_file_capped;
using testing_support::TempDir;

TEST(CappedFile, ReadsARegularFileAndFollowsSymlinks) {
  TempDir dir;
  std::ofstream(dir.path() + "/a.json") << R"({"x":1})";
  std::filesystem::create_symlink(dir.path() + "/a.json", dir.path() + "/link.json");
  EXPECT_EQ(read_file_capped(dir.path() + "/a.json", 100).text, R"({"x":1})");
  EXPECT_EQ(read_file_capped(dir.path() + "/link.json", 100).text, R"({"x":1})");
  std::ofstream(dir.path() + "/empty");
  EXPECT_EQ(read_file_capped(dir.path() + "/empty", 100).text, "");
}

TEST(CappedFile, RefusesWhatIsNotARegularFileWithoutBlocking) {
  TempDir dir;
  const std::string fifo = dir.path() + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::filesystem::create_symlink(fifo, dir.path() + "/to-fifo");
  const auto t0 = std::chrono::steady_clock::now();
  for (const std::string& p : {fifo, dir.path() + "/to-fifo"}) {
    auto r = read_file_capped(p, 1 << 20);  // no writer: a blocking open would hang here
    EXPECT_FALSE(r);
    EXPECT_EQ(r.error.kind, FileError::Kind::not_regular);
    EXPECT_NE(r.error.message.find("FIFO"), std::string::npos) << r.error.message;
  }
  auto zero = read_file_capped("/dev/zero", 1 << 20);  // read only: endless bytes
  EXPECT_EQ(zero.error.kind, FileError::Kind::not_regular);
  EXPECT_NE(zero.error.message.find("device"), std::string::npos);
  EXPECT_EQ(read_file_capped(dir.path(), 100).error.kind, FileError::Kind::not_regular);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
}

TEST(CappedFile, RefusesOversizeAndNamesMissingFiles) {
  TempDir dir;
  std::ofstream(dir.path() + "/big") << std::string(1001, 'x');
  auto big = read_file_capped(dir.path() + "/big", 1000);
  EXPECT_EQ(big.error.kind, FileError::Kind::too_large);
  EXPECT_NE(big.error.message.find("1000"), std::string::npos);
  EXPECT_EQ(read_file_capped(dir.path() + "/big", 1001).text->size(), 1001u);
  auto missing = read_file_capped(dir.path() + "/nope.json", 1000);
  EXPECT_EQ(missing.error.kind, FileError::Kind::missing);
  EXPECT_NE(missing.error.message.find("nope.json"), std::string::npos);
}
