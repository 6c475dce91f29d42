#include "support/prometheus_text.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <set>

namespace docwright::testing {
namespace {

bool ValidName(std::string_view n, bool colons) {
  if (n.empty()) return false;
  for (size_t i = 0; i < n.size(); ++i) {
    char c = n[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
              (colons && c == ':') || (i > 0 && c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

bool ParseValue(std::string_view t, double* v) {
  if (t == "+Inf" || t == "Inf") {
    *v = INFINITY;
    return true;
  }
  if (t == "-Inf") {
    *v = -INFINITY;
    return true;
  }
  if (t == "NaN") {
    *v = NAN;
    return true;
  }
  if (t.empty() || t.front() == '+') return false;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), *v);
  return ec == std::errc() && end == t.data() + t.size();
}

// The family a sample name belongs to, given the families declared.
std::string FamilyOf(const std::string& name, const std::map<std::string, PromFamily>& families) {
  for (const char* suffix : {"_bucket", "_sum", "_count"}) {
    std::string_view s(suffix);
    if (name.size() > s.size() && name.ends_with(s)) {
      std::string base = name.substr(0, name.size() - s.size());
      auto it = families.find(base);
      if (it != families.end() && it->second.type == "histogram") return base;
    }
  }
  return name;
}

struct Reader {
  std::string_view line;
  size_t pos = 0;
  std::string error;

  bool Fail(std::string what) {
    if (error.empty()) error = std::move(what);
    return false;
  }
  bool Name(std::string* out, bool colons) {
    size_t start = pos;
    while (pos < line.size() && (std::isalnum(static_cast<unsigned char>(line[pos])) ||
                                 line[pos] == '_' || line[pos] == ':')) {
      ++pos;
    }
    *out = std::string(line.substr(start, pos - start));
    return ValidName(*out, colons) || Fail("invalid name \"" + *out + "\"");
  }
  bool Labels(std::map<std::string, std::string>* labels) {
    if (pos >= line.size() || line[pos] != '{') return true;
    ++pos;
    while (true) {
      if (pos < line.size() && line[pos] == '}') {
        ++pos;
        return true;
      }
      std::string name;
      if (!Name(&name, false)) return false;
      if (pos + 1 >= line.size() || line[pos] != '=' || line[pos + 1] != '"') {
        return Fail("expected =\" after label " + name);
      }
      pos += 2;
      std::string value;
      while (true) {
        if (pos >= line.size()) return Fail("unterminated label value");
        char c = line[pos++];
        if (c == '"') break;
        if (c == '\\') {
          if (pos >= line.size()) return Fail("a backslash ends the line");
          char e = line[pos++];
          if (e == '\\') {
            value += '\\';
          } else if (e == '"') {
            value += '"';
          } else if (e == 'n') {
            value += '\n';
          } else {
            return Fail(std::string("invalid escape \\") + e);
          }
        } else {
          value += c;
        }
      }
      if (!labels->emplace(name, value).second) return Fail("label " + name + " twice");
      if (pos < line.size() && line[pos] == ',') {
        ++pos;
      } else if (pos >= line.size() || line[pos] != '}') {
        return Fail("expected , or } after a label");
      }
    }
  }
};

std::string Unescape(std::string_view help, bool* ok) {
  std::string out;
  for (size_t i = 0; i < help.size(); ++i) {
    if (help[i] != '\\') {
      out += help[i];
      continue;
    }
    if (++i >= help.size()) {
      *ok = false;
      return out;
    }
    if (help[i] == '\\') {
      out += '\\';
    } else if (help[i] == 'n') {
      out += '\n';
    } else {
      *ok = false;
    }
  }
  return out;
}

std::string Key(const std::string& name, const std::map<std::string, std::string>& labels) {
  std::string k = name;
  for (const auto& [n, v] : labels) k += "\x1f" + n + "\x1e" + v;
  return k;
}

// The histogram rules, once its samples are all read.
std::string CheckHistogram(const PromFamily& f) {
  struct Series {
    std::vector<std::pair<double, double>> buckets;  // le, count, as written
    double count = -1, sum = NAN;
  };
  std::map<std::string, Series> series;
  for (const PromSample& s : f.samples) {
    auto labels = s.labels;
    std::string le;
    if (s.name == f.name + "_bucket") {
      auto it = labels.find("le");
      if (it == labels.end()) return f.name + "_bucket without le";
      le = it->second;
      labels.erase(it);
    }
    Series& ser = series[Key("", labels)];
    if (s.name == f.name + "_bucket") {
      double bound = 0;
      if (!ParseValue(le, &bound)) return f.name + ": le \"" + le + "\" is no number";
      ser.buckets.emplace_back(bound, s.value);
    } else if (s.name == f.name + "_count") {
      ser.count = s.value;
    } else if (s.name == f.name + "_sum") {
      ser.sum = s.value;
    } else {
      return f.name + ": sample " + s.name + " in a histogram";
    }
  }
  for (const auto& [key, s] : series) {
    if (s.buckets.empty() || !std::isinf(s.buckets.back().first)) {
      return f.name + ": the last bucket is not le=\"+Inf\"";
    }
    for (size_t i = 1; i < s.buckets.size(); ++i) {
      if (!(s.buckets[i].first > s.buckets[i - 1].first)) return f.name + ": le not increasing";
      if (s.buckets[i].second < s.buckets[i - 1].second) return f.name + ": buckets not cumulative";
    }
    if (s.count < 0) return f.name + ": no _count";
    if (std::isnan(s.sum)) return f.name + ": no _sum";
    if (s.buckets.back().second != s.count) return f.name + ": +Inf bucket differs from _count";
  }
  return "";
}

}  // namespace

PromParse ParsePrometheusText(std::string_view text) {
  PromParse out;
  std::set<std::string> seen_series;
  std::set<std::string> closed;  // families whose samples have ended
  std::string current;           // the family of the last sample
  size_t number = 0;
  auto fail = [&](const std::string& what) {
    out.error = "line " + std::to_string(number) + ": " + what;
    return out;
  };
  if (!text.empty() && text.back() != '\n') {
    number = 1 + static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
    return fail("the text does not end with a line feed");
  }
  while (!text.empty()) {
    ++number;
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl + 1);
    if (line.find('\r') != std::string_view::npos) return fail("carriage return");
    if (line.empty()) continue;
    if (line.starts_with("#")) {
      bool help = line.starts_with("# HELP ");
      bool type = line.starts_with("# TYPE ");
      if (!help && !type) continue;  // any other comment
      std::string_view rest = line.substr(7);
      size_t sp = rest.find(' ');
      std::string name(rest.substr(0, sp));
      if (!ValidName(name, true)) return fail("invalid name in a comment: " + name);
      std::string_view arg = sp == std::string_view::npos ? "" : rest.substr(sp + 1);
      if (closed.count(name) || current == name) {
        return fail(std::string(help ? "HELP" : "TYPE") + " of " + name + " after its samples");
      }
      PromFamily& f = out.families[name];
      f.name = name;
      if (help) {
        if (!f.help.empty()) return fail("HELP of " + name + " twice");
        bool ok = true;
        f.help = Unescape(arg, &ok);
        if (!ok || f.help.empty()) return fail("invalid HELP of " + name);
      } else {
        if (!f.type.empty()) return fail("TYPE of " + name + " twice");
        static const std::set<std::string> kTypes = {"counter", "gauge", "histogram", "summary",
                                                     "untyped"};
        if (!kTypes.count(std::string(arg))) return fail("invalid TYPE " + std::string(arg));
        f.type = std::string(arg);
      }
      continue;
    }
    Reader r{line};
    PromSample s;
    if (!r.Name(&s.name, true) || !r.Labels(&s.labels)) return fail(r.error);
    if (r.pos >= line.size() || line[r.pos] != ' ')
      return fail("expected a space before the value");
    std::string_view rest = line.substr(r.pos + 1);
    size_t sp = rest.find(' ');
    std::string_view value = rest.substr(0, sp);
    if (!ParseValue(value, &s.value)) return fail("invalid value \"" + std::string(value) + "\"");
    if (sp != std::string_view::npos) {
      int64_t ts = 0;
      std::string_view t = rest.substr(sp + 1);
      auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), ts);
      if (ec != std::errc() || end != t.data() + t.size()) return fail("invalid timestamp");
    }
    std::string family = FamilyOf(s.name, out.families);
    if (family != current) {
      if (!current.empty()) closed.insert(current);
      if (closed.count(family)) return fail("samples of " + family + " are not together");
      current = family;
    }
    PromFamily& f = out.families[family];
    f.name = family;
    if (f.type.empty()) return fail("sample of " + family + " before its TYPE");
    if (f.type != "histogram" && s.name != family) return fail("sample name " + s.name);
    if (f.type == "counter" && !(s.value >= 0)) return fail("negative counter " + s.name);
    if (!seen_series.insert(Key(s.name, s.labels)).second) {
      return fail("series twice: " + std::string(line));
    }
    f.samples.push_back(std::move(s));
  }
  for (const auto& [name, f] : out.families) {
    if (f.type == "histogram") {
      std::string wrong = CheckHistogram(f);
      if (!wrong.empty()) return fail(wrong);
    }
  }
  return out;
}

double PromParse::Value(const std::string& name,
                        const std::map<std::string, std::string>& labels) const {
  for (const auto& [fn, f] : families) {
    for (const PromSample& s : f.samples) {
      if (s.name == name && s.labels == labels) return s.value;
    }
  }
  return -1;
}

double PromParse::Sum(const std::string& name,
                      const std::map<std::string, std::string>& match) const {
  double sum = 0;
  for (const auto& [fn, f] : families) {
    for (const PromSample& s : f.samples) {
      if (s.name != name) continue;
      bool all = true;
      for (const auto& [k, v] : match) {
        auto it = s.labels.find(k);
        all = all && it != s.labels.end() && it->second == v;
      }
      if (all) sum += s.value;
    }
  }
  return sum;
}

std::vector<std::string> PromParse::LabelValues() const {
  std::vector<std::string> out;
  for (const auto& [fn, f] : families) {
    for (const PromSample& s : f.samples) {
      for (const auto& [k, v] : s.labels) out.push_back(v);
    }
  }
  return out;
}

}  // namespace docwright::testing
