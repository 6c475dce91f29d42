// Secrets at rest: the sealing of core/secret_box.h and the key file of
// core/secret_key_file.h.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <thread>
#include <vector>

#include "core/secret_box.h"
#include "core/secret_key_file.h"
#include "core/text.h"
#include "support/temp_dir.h"

namespace docwright {
namespace {

using testing::TempDir;

constexpr const char* kToken = "ghp_4f8a1c9e0b7d6a5f3e2c1b0a9f8e7d6c5b4a3f2e";
constexpr const char* kContext = "projects.forge_token:0190c3a4-0000-7000-8000-000000000001";

SecretBox Box(std::vector<std::string> keys) {
  auto box = SecretBox::Make(std::move(keys));
  EXPECT_TRUE(box.ok()) << box.status().message();
  return std::move(*box);
}

std::string KeyA() { return std::string(kSecretKeyBytes, 'a'); }
std::string KeyB() { return std::string(kSecretKeyBytes, 'b'); }

TEST(SecretBoxTest, ASealedValueOpensToWhatWasSealed) {
  SecretBox box = Box({KeyA()});
  auto sealed = box.Seal(kToken, kContext);
  ASSERT_TRUE(sealed.ok()) << sealed.status().message();
  EXPECT_TRUE(sealed->starts_with("dwenc:v1:" + box.current_key_id() + ":")) << *sealed;
  EXPECT_EQ(sealed->find(kToken), std::string::npos);
  EXPECT_EQ(SecretBox::KeyIdOf(*sealed), box.current_key_id());
  auto opened = box.Open(*sealed, kContext);
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  EXPECT_EQ(*opened, kToken);
  // A fresh nonce each time: the same secret never seals to the same text.
  EXPECT_NE(*box.Seal(kToken, kContext), *sealed);
  EXPECT_EQ(*box.Open(*box.Seal("", kContext), kContext), "");
}

TEST(SecretBoxTest, AnyAlteredByteMakesItFailToOpen) {
  SecretBox box = Box({KeyA()});
  const std::string sealed = *box.Seal(kToken, kContext);
  const size_t body = sealed.rfind(':') + 1;
  auto body_bytes = *Base64Decode(std::string_view(sealed).substr(body));
  for (size_t i = 0; i < body_bytes.size(); ++i) {
    std::string flipped = body_bytes;
    flipped[i] = static_cast<char>(flipped[i] ^ 0x01);
    auto opened = box.Open(sealed.substr(0, body) + Base64Encode(flipped), kContext);
    ASSERT_FALSE(opened.ok()) << "byte " << i;
    EXPECT_EQ(opened.status().code(), Code::kInternal);
    EXPECT_EQ(opened.status().message().find(kToken), std::string::npos);
  }
  EXPECT_FALSE(box.Open(sealed.substr(0, sealed.size() - 4), kContext).ok());  // cut short
  EXPECT_FALSE(box.Open(sealed + "AAAA", kContext).ok());                      // longer
}

TEST(SecretBoxTest, AValueSealedForOneRecordDoesNotOpenForAnother) {
  SecretBox box = Box({KeyA()});
  const std::string sealed = *box.Seal(kToken, kContext);
  for (const char* other : {"projects.forge_token:0190c3a4-0000-7000-8000-000000000002",
                            "webhooks.secret:0190c3a4-0000-7000-8000-000000000001", ""}) {
    auto opened = box.Open(sealed, other);
    EXPECT_FALSE(opened.ok()) << other;
    EXPECT_EQ(opened.status().code(), Code::kInternal);
  }
}

TEST(SecretBoxTest, OlderKeysStillOpenAndTheFirstSeals) {
  SecretBox old_box = Box({KeyA()});
  const std::string sealed_under_a = *old_box.Seal(kToken, kContext);
  SecretBox rotated = Box({KeyB(), KeyA()});
  EXPECT_EQ(rotated.current_key_id(), SecretBox::KeyId(KeyB()));
  EXPECT_TRUE(rotated.HoldsKey(old_box.current_key_id()));
  EXPECT_EQ(*rotated.Open(sealed_under_a, kContext), kToken);
  const std::string sealed_under_b = *rotated.Seal(kToken, kContext);
  EXPECT_EQ(SecretBox::KeyIdOf(sealed_under_b), rotated.current_key_id());
  // A box without B cannot open what B sealed, and says which key it lacks.
  auto opened = old_box.Open(sealed_under_b, kContext);
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.status().code(), Code::kUnavailable);
  EXPECT_NE(opened.status().message().find(rotated.current_key_id()), std::string::npos)
      << opened.status().message();
}

TEST(SecretBoxTest, MalformedValuesAreRefusedWithoutOpening) {
  SecretBox box = Box({KeyA()});
  const std::string id = box.current_key_id();
  for (const std::string& bad :
       {std::string(kToken), std::string("dwenc:"), std::string("dwenc:v2:") + id + ":AAAA",
        "dwenc:v1:" + id, "dwenc:v1:" + id + ":", std::string("dwenc:v1:XYZ:AAAA"),
        "dwenc:v1:" + id + ":A", "dwenc:v1:" + id + ":" + Base64Encode(std::string(27, 'x')),
        "dwenc:v1:" + id + ":" + std::string(400000, 'A')}) {
    auto opened = box.Open(bad, kContext);
    EXPECT_FALSE(opened.ok()) << bad.substr(0, 80);
    EXPECT_EQ(opened.status().code(), Code::kInvalidArgument) << bad.substr(0, 80);
  }
  EXPECT_FALSE(SecretBox::KeyIdOf(kToken).has_value());
}

TEST(SecretBoxTest, KeysMustBeWholeAndDistinct) {
  EXPECT_FALSE(SecretBox::Make({}).ok());
  EXPECT_FALSE(SecretBox::Make({std::string(16, 'a')}).ok());
  EXPECT_FALSE(SecretBox::Make({KeyA(), KeyA()}).ok());
  EXPECT_FALSE(Box({KeyA()}).Seal(std::string(kMaxSecretBytes + 1, 'x'), kContext).ok());
}

TEST(Base64Test, RoundTripsAndRefusesWhatIsNotStrictBase64) {
  for (std::string s : {"", "f", "fo", "foo", "foob", "fooba", "foobar", "\xff\x00\x80"}) {
    EXPECT_EQ(Base64Decode(Base64Encode(s)), s);
  }
  EXPECT_EQ(Base64Encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  for (const char* bad : {"Zg=", "Z=g=", "====", "Zm9v\n", "Zm 9", "Zg==Zg==", "Zm9-"}) {
    EXPECT_FALSE(Base64Decode(bad).has_value()) << bad;
  }
}

mode_t ModeOf(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

TEST(SecretKeyFileTest, AMissingFileIsCreatedOwnerOnlyWithOneRandomKey) {
  TempDir dir;
  const std::string path = dir / "data/secret.key";
  auto box = LoadSecretKeyFile(path);
  ASSERT_TRUE(box.ok()) << box.status().message();
  EXPECT_EQ(ModeOf(path), 0600);
  EXPECT_EQ(ModeOf(dir / "data"), 0700);
  std::ifstream in(path);
  std::string line, rest;
  std::getline(in, line);
  EXPECT_FALSE(std::getline(in, rest));
  auto key = Base64Decode(line);
  ASSERT_TRUE(key.has_value()) << "one base64 line";
  EXPECT_EQ(key->size(), kSecretKeyBytes);
  EXPECT_EQ(box->current_key_id(), SecretBox::KeyId(*key));
  // Loaded again, it is the same key.
  EXPECT_EQ(LoadSecretKeyFile(path)->current_key_id(), box->current_key_id());
}

TEST(SecretKeyFileTest, ProcessesStartingAtOnceAgreeOnOneKey) {
  TempDir dir;
  const std::string path = dir / "secret.key";
  std::vector<std::string> ids(8);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < ids.size(); ++i) {
    threads.emplace_back([&, i] {
      auto box = LoadSecretKeyFile(path);
      ids[i] = box.ok() ? box->current_key_id() : box.status().message();
    });
  }
  for (auto& t : threads) t.join();
  for (const std::string& id : ids) EXPECT_EQ(id, ids[0]);
  EXPECT_EQ(SecretBox::KeyIdOf("dwenc:v1:" + ids[0] + ":" + Base64Encode(std::string(28, 'x'))),
            ids[0])
      << "a key id, not an error: " << ids[0];
}

TEST(SecretKeyFileTest, AFileOthersMayReadIsRefused) {
  TempDir dir;
  const std::string path = dir / "secret.key";
  ASSERT_TRUE(LoadSecretKeyFile(path).ok());
  for (mode_t mode : {0640, 0604, 0620, 0660}) {
    ASSERT_EQ(::chmod(path.c_str(), mode), 0);
    auto box = LoadSecretKeyFile(path);
    ASSERT_FALSE(box.ok()) << std::oct << mode;
    EXPECT_EQ(box.status().code(), Code::kInvalidArgument);
    EXPECT_NE(box.status().message().find("chmod 600 " + path), std::string::npos)
        << box.status().message();
  }
  ASSERT_EQ(::chmod(path.c_str(), 0400), 0);  // read-only for its owner is fine
  EXPECT_TRUE(LoadSecretKeyFile(path).ok());
}

TEST(SecretKeyFileTest, OlderKeysFollowTheCurrentOneAndBadLinesAreRefused) {
  TempDir dir;
  const std::string path = dir / "secret.key";
  {
    std::ofstream out(path);
    out << "# rotated 2026-01-01\n"
        << Base64Encode(KeyB()) << "\r\n\n  " << Base64Encode(KeyA()) << "  \n";
  }
  ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
  auto box = LoadSecretKeyFile(path);
  ASSERT_TRUE(box.ok()) << box.status().message();
  EXPECT_EQ(box->current_key_id(), SecretBox::KeyId(KeyB()));
  EXPECT_TRUE(box->HoldsKey(SecretBox::KeyId(KeyA())));

  auto added = AddSecretKey(path);
  ASSERT_TRUE(added.ok()) << added.status().message();
  EXPECT_EQ(ModeOf(path), 0600);
  auto after = LoadSecretKeyFile(path);
  ASSERT_TRUE(after.ok()) << after.status().message();
  EXPECT_EQ(after->current_key_id(), *added);
  EXPECT_TRUE(after->HoldsKey(SecretBox::KeyId(KeyB())));
  EXPECT_TRUE(after->HoldsKey(SecretBox::KeyId(KeyA())));

  for (const std::string& text :
       {std::string("not a key\n"), Base64Encode(std::string(16, 'k')) + "\n",
        std::string("\n# none\n")}) {
    std::ofstream(path, std::ios::trunc) << text;
    auto bad = LoadSecretKeyFile(path);
    ASSERT_FALSE(bad.ok()) << text;
    EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
    EXPECT_NE(bad.status().message().find(path), std::string::npos) << bad.status().message();
  }
}

}  // namespace
}  // namespace docwright
