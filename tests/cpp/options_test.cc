#include "frontends/options.h"

#include <gtest/gtest.h>

#include "kernels/cpu.h"

namespace fd {
namespace {

std::string parse(std::vector<std::pair<std::string, std::string>> kv, Options* o = nullptr) {
  Options tmp;
  return parse_options(kv, o ? o : &tmp);
}

TEST(Options, DefaultsAndGoodValues) {
  Options o;
  ASSERT_EQ(parse({{"num_threads", "2"}, {"isa", "scalar"}, {"fusions", "elementwise"},
                   {"min_nodes_per_partition", "3"}, {"log", "verbose"}}, &o), "");
  EXPECT_EQ(o.num_threads, 2);
  EXPECT_EQ(o.isa, "scalar");
  EXPECT_EQ(o.families, kFamilyElementwise);
  EXPECT_EQ(o.min_nodes_per_partition, 3);
  EXPECT_EQ(o.log, LogLevel::kVerbose);
  ASSERT_EQ(parse({{"fusions", "none"}}, &o), "");
  EXPECT_EQ(o.families, 0u);
  ASSERT_EQ(parse({{"plan_file", "/tmp/p.json"}, {"profile_file", "/tmp/q.json"}}, &o), "");
  EXPECT_EQ(o.plan_file, "/tmp/p.json");
  EXPECT_EQ(o.profile_file, "/tmp/q.json");
}

TEST(Options, BadInputNamesTheKeyAndTheAcceptedValues) {
  EXPECT_NE(parse({{"colour", "red"}}).find("unknown option 'colour'"), std::string::npos);
  EXPECT_NE(parse({{"num_threads", "x"}}).find("'num_threads'"), std::string::npos);
  EXPECT_NE(parse({{"num_threads", "0"}}).find("'num_threads'"), std::string::npos);
  // Integers are plain: spaces on either side are refused alike, as are signs alone and 0x.
  for (const char* v : {" 2", "2 ", "+", "-", "0x2", "2.0", "1e1", "--1"})
    EXPECT_NE(parse({{"num_threads", v}}).find("'num_threads'"), std::string::npos) << "'" << v << "'";
  EXPECT_EQ(parse({{"num_threads", "-1"}}), "");
  EXPECT_EQ(parse({{"num_threads", "+3"}}), "");
  EXPECT_NE(parse({{"min_nodes_per_partition", " 1"}}).find("'min_nodes_per_partition'"), std::string::npos);
  EXPECT_NE(parse({{"isa", "sse9"}}).find("auto, scalar, avx2, avx512, neon"), std::string::npos);
  EXPECT_NE(parse({{"fusions", "conv,bogus"}}).find("'fusions'"), std::string::npos);
  EXPECT_NE(parse({{"min_nodes_per_partition", "0"}}).find("'min_nodes_per_partition'"), std::string::npos);
  EXPECT_NE(parse({{"log", "loud"}}).find("quiet, info, verbose"), std::string::npos);
  EXPECT_NE(parse({{"plan_file", ""}}).find("'plan_file'"), std::string::npos);
}

TEST(Options, AnIsaThisCpuLacksIsRefused) {
  const auto isas = available_isas();
  for (const char* isa : {"avx2", "avx512", "neon"}) {
    const bool have = std::find(isas.begin(), isas.end(), isa) != isas.end();
    const std::string err = parse({{"isa", isa}});
    EXPECT_EQ(err.empty(), have) << isa << ": " << err;
    if (!have) {
      EXPECT_NE(err.find("available here: scalar"), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace fd
