#include "support/ssh_server.h"

#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/git_repo.h"
#include "support/server_process.h"
#include "support/temp_dir.h"

namespace docwright::testing {
namespace {

// A port that was free a moment ago.
uint16_t FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

bool Accepts(uint16_t port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  close(fd);
  return ok;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

struct SshServer::Process {
  BackgroundProcess server;
};

SshServer::SshServer(std::string dir) : dir_(std::move(dir)) {}

SshServer::~SshServer() {
  if (process_) process_->server.Terminate();
}

bool SshServer::Start() {
  if (access("/usr/sbin/dropbear", X_OK) != 0 || access("/usr/bin/ssh-keygen", X_OK) != 0) {
    why_ = "dropbear-bin and openssh-client are needed (./dw test installs them)";
    return false;
  }
  std::filesystem::create_directories(dir_ + "/home/.ssh");
  Sh("dropbearkey -t ed25519 -f " + dir_ + "/host_key > /dev/null");
  Sh("ssh-keygen -q -t ed25519 -N '' -f " + dir_ + "/client_key");
  Sh("ssh-keygen -q -t ed25519 -N '' -f " + dir_ + "/other_key");
  Sh("cp " + dir_ + "/client_key.pub " + dir_ + "/home/.ssh/authorized_keys && chmod 700 " + dir_ +
     "/home " + dir_ + "/home/.ssh && chmod 600 " + dir_ + "/home/.ssh/authorized_keys");
  port_ = FreePort();
  // "ssh-ed25519 AAAA... root@host" -> "[127.0.0.1]:PORT ssh-ed25519 AAAA..."
  std::string public_key = Sh("dropbearkey -y -f " + dir_ + "/host_key | grep '^ssh-'");
  std::istringstream fields(public_key);
  std::string type, blob;
  fields >> type >> blob;
  std::ofstream(known_hosts()) << "# test host\n[127.0.0.1]:" << port_ << " " << type << " " << blob
                               << "\n";

  // In its own mount namespace (as root, or as a mapped root in a user
  // namespace), the scratch home hides the real one.
  const char* home = getpwuid(0) ? getpwuid(0)->pw_dir : "/root";
  std::string script =
      "mount --bind '" + dir_ + "/home' '" + home +
      "' && exec /usr/sbin/dropbear -F -E -s -m -p 127.0.0.1:" + std::to_string(port_) + " -r '" +
      dir_ + "/host_key' -P '" + dir_ + "/dropbear.pid'";
  std::vector<std::string> args;
  if (getuid() != 0) args.push_back("--map-root-user");
  for (const char* a : {"--mount", "--propagation", "private", "/bin/sh", "-c"}) args.push_back(a);
  args.push_back(script);
  process_ = std::make_unique<Process>();
  process_->server.Start("/usr/bin/unshare", args, dir_ + "/sshd.out", dir_ + "/sshd.log");
  if (!WaitUntil([&] { return Accepts(port_) || !process_->server.Running(); },
                 std::chrono::seconds(20)) ||
      !process_->server.Running()) {
    why_ = "the SSH server did not start (is unshare --mount allowed here?): " +
           ReadAll(dir_ + "/sshd.log");
    return false;
  }
  return true;
}

std::string SshServer::Url(const std::string& path) const {
  return "ssh://root@127.0.0.1:" + std::to_string(port_) + path;
}

}  // namespace docwright::testing
