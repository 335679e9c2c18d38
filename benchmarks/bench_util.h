// What the kernel benchmarks share: the CPU's name and a median rate over rounds.
#pragma once

#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>
#include <vector>

namespace fd::bench {

// This CPU's model name, family and model (/proc/cpuinfo).
inline std::string cpu_name() {
  std::ifstream info("/proc/cpuinfo");
  std::string line, name, family, model;
  const auto value = [](const std::string& l) { return l.substr(l.find(':') + 2); };
  while (std::getline(info, line)) {
    if (name.empty() && line.rfind("model name", 0) == 0) name = value(line);
    if (family.empty() && line.rfind("cpu family", 0) == 0) family = value(line);
    if (model.empty() && line.rfind("model\t", 0) == 0) model = value(line);
  }
  return name + " (family " + family + ", model " + model + ")";
}

// The median over `rounds` rounds of work * calls / seconds, each round `calls` calls of run().
template <class Run>
double median_rate(int rounds, int calls, double work, Run run) {
  std::vector<double> rates;
  for (int r = 0; r < rounds; ++r) {
    const auto start = std::chrono::steady_clock::now();
    for (int c = 0; c < calls; ++c) run();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rates.push_back(work * calls / seconds);
  }
  std::sort(rates.begin(), rates.end());
  return rates[rates.size() / 2];
}

}  // namespace fd::bench
