#include "fakes/fake_prompt_cache.h"

#include <algorithm>
#include <optional>
#include <string_view>

namespace docwright::testing {
namespace {

using nlohmann::json;

// Entries kept before expired ones are dropped; past it twice over, all are
// (a provider evicts too).
constexpr size_t kMaxEntries = 200000;

std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

int64_t Tokens(size_t bytes) { return static_cast<int64_t>((bytes + 3) / 4); }

// FNV-1a, 64 bits, continued from `h`: the same on every platform.
uint64_t Hash(uint64_t h, std::string_view bytes) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

uint64_t Seed(const json& body, std::string_view wire) {
  std::string model = body.contains("model") && body["model"].is_string()
                          ? body["model"].get<std::string>()
                          : std::string();
  return Hash(Hash(14695981039346656037ull, wire), model + '\n');
}

// One Anthropic block of the prompt: its bytes without cache_control, and its
// breakpoint if it has one.
struct Block {
  std::string bytes;
  const json* cache_control = nullptr;
};

void AddBlock(std::vector<Block>& blocks, std::string_view where, const json& block) {
  Block b;
  if (block.is_object() && block.contains("cache_control") && !block["cache_control"].is_null()) {
    json bare = block;
    bare.erase("cache_control");
    b.bytes = std::string(where) + Dump(bare);
    b.cache_control = &block["cache_control"];
  } else {
    b.bytes = std::string(where) + Dump(block);
  }
  blocks.push_back(std::move(b));
}

// tools, system, messages: the order Anthropic reads a request in.
std::vector<Block> AnthropicBlocks(const json& body) {
  std::vector<Block> blocks;
  if (body.contains("tools") && body["tools"].is_array()) {
    for (const json& tool : body["tools"]) AddBlock(blocks, "tool:", tool);
  }
  if (body.contains("system")) {
    const json& system = body["system"];
    if (system.is_string()) {
      AddBlock(blocks, "system:", json{{"type", "text"}, {"text", system}});
    } else if (system.is_array()) {
      for (const json& block : system) AddBlock(blocks, "system:", block);
    }
  }
  if (body.contains("messages") && body["messages"].is_array()) {
    for (const json& m : body["messages"]) {
      if (!m.is_object()) continue;
      std::string role = m.contains("role") && m["role"].is_string()
                             ? m["role"].get<std::string>() + ":"
                             : std::string("?:");
      // (A reference into `m`, never to a copy: the blocks point into it.)
      if (!m.contains("content")) continue;
      const json& content = m["content"];
      if (content.is_array()) {
        for (const json& block : content) AddBlock(blocks, role, block);
      } else if (content.is_string()) {
        AddBlock(blocks, role, json{{"type", "text"}, {"text", content}});
      }
    }
  }
  return blocks;
}

}  // namespace

bool FakePromptCache::Has(uint64_t key, Clock::time_point now) const {
  auto it = entries_.find(key);
  return it != entries_.end() && it->second > now;
}

void FakePromptCache::Keep(uint64_t key, Clock::time_point until) {
  Clock::time_point& expiry = entries_[key];
  expiry = std::max(expiry, until);
  if (entries_.size() <= kMaxEntries) return;
  Clock::time_point now = Now();
  std::erase_if(entries_, [now](const auto& entry) { return entry.second <= now; });
  if (entries_.size() > 2 * kMaxEntries) entries_.clear();
}

void FakePromptCache::SetEnabled(bool on) {
  std::lock_guard lock(mu_);
  enabled_ = on;
}

void FakePromptCache::Advance(std::chrono::seconds by) {
  std::lock_guard lock(mu_);
  skew_ += by;
}

PromptCacheUsage FakePromptCache::Anthropic(const json& body, std::vector<std::string>& problems,
                                            bool& refused) {
  refused = false;
  std::vector<Block> blocks = AnthropicBlocks(body);
  std::string model = body.contains("model") && body["model"].is_string()
                          ? body["model"].get<std::string>()
                          : std::string();
  const int64_t minimum = model.find("haiku") != std::string::npos ? 2048 : 1024;

  // The prefix ending at each block: its hash and its tokens.
  std::vector<uint64_t> hashes(blocks.size());
  std::vector<int64_t> tokens(blocks.size());
  std::vector<size_t> breakpoints;
  std::vector<std::chrono::seconds> lifetimes;
  uint64_t h = Seed(body, "anthropic");
  size_t bytes = 0;
  for (size_t i = 0; i < blocks.size(); ++i) {
    h = Hash(h, blocks[i].bytes);
    h = Hash(h, std::string_view("\0", 1));  // a block boundary is part of the identity
    bytes += blocks[i].bytes.size();
    hashes[i] = h;
    tokens[i] = Tokens(bytes);
    if (!blocks[i].cache_control) continue;
    const json& control = *blocks[i].cache_control;
    std::string where = "cache_control of prompt block " + std::to_string(i);
    if (!control.is_object() || !control.contains("type") || control["type"] != "ephemeral") {
      problems.push_back(where + ": type must be \"ephemeral\"");
      continue;
    }
    std::chrono::seconds lifetime{300};
    for (const auto& [key, value] : control.items()) {
      if (key == "ttl") {
        if (value == "1h") {
          lifetime = std::chrono::seconds(3600);
        } else if (value != "5m") {
          problems.push_back(where + ": ttl must be \"5m\" or \"1h\"");
        }
      } else if (key != "type") {
        problems.push_back(where + ": undocumented field " + key);
      }
    }
    // A longer lifetime may not follow a shorter one.
    if (!lifetimes.empty() && lifetime > lifetimes.back()) {
      problems.push_back(where + ": a 1h breakpoint must come before any 5m one");
    }
    breakpoints.push_back(i);
    lifetimes.push_back(lifetime);
  }
  PromptCacheUsage usage;
  usage.prompt_tokens = Tokens(bytes);
  if (breakpoints.size() > static_cast<size_t>(kMaxBreakpoints)) {
    problems.push_back("A maximum of 4 blocks with cache_control may be provided. Found " +
                       std::to_string(breakpoints.size()) + ".");
    refused = true;
    return usage;
  }

  std::lock_guard lock(mu_);
  if (!enabled_) return usage;
  Clock::time_point now = Now();
  // Read: the longest cached prefix at or up to 20 blocks before a breakpoint.
  std::optional<size_t> read;
  for (size_t b : breakpoints) {
    size_t lowest = b >= static_cast<size_t>(kLookbackBlocks - 1) ? b - (kLookbackBlocks - 1) : 0;
    for (size_t j = b + 1; j-- > lowest;) {
      if (Has(hashes[j], now)) {
        if (!read || j > *read) read = j;
        break;
      }
    }
  }
  if (read) {
    usage.cache_read = tokens[*read];
    Keep(hashes[*read], now + std::chrono::seconds(300));
  }
  // Write: every breakpoint long enough; billed from the prefix read on.
  for (size_t k = 0; k < breakpoints.size(); ++k) {
    size_t b = breakpoints[k];
    if (tokens[b] < minimum) continue;
    Keep(hashes[b], now + lifetimes[k]);
    if (read && b <= *read) continue;
    int64_t written = tokens[b] - usage.cache_read - usage.cache_write;
    usage.cache_write += written;
    if (lifetimes[k] > std::chrono::seconds(300)) usage.cache_write_1h += written;
  }
  return usage;
}

PromptCacheUsage FakePromptCache::OpenAI(const json& body) {
  // The tools, then the messages, as one text.
  std::string prompt = Dump(body.contains("tools") ? body["tools"] : json()) + "\n" +
                       Dump(body.contains("messages") ? body["messages"] : json());
  PromptCacheUsage usage;
  usage.prompt_tokens = Tokens(prompt.size());
  // The prefix hashes at 1024 tokens and every 128 after, within the prompt.
  std::vector<std::pair<int64_t, uint64_t>> prefixes;
  uint64_t h = Seed(body, "openai");
  size_t hashed = 0;
  for (int64_t t = kOpenAiMinimum; static_cast<size_t>(t) * 4 <= prompt.size();
       t += kOpenAiIncrement) {
    h = Hash(h, std::string_view(prompt).substr(hashed, static_cast<size_t>(t) * 4 - hashed));
    hashed = static_cast<size_t>(t) * 4;
    prefixes.emplace_back(t, h);
  }
  std::lock_guard lock(mu_);
  if (!enabled_) return usage;
  Clock::time_point now = Now();
  for (auto it = prefixes.rbegin(); it != prefixes.rend(); ++it) {
    if (Has(it->second, now)) {
      usage.cache_read = it->first;
      break;
    }
  }
  for (const auto& [t, key] : prefixes) Keep(key, now + std::chrono::seconds(300));
  return usage;
}

}  // namespace docwright::testing
