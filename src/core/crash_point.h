// Named crash points: places in a turn where state is half-written (a commit
// made but not pushed, the remote's ref lock held, a branch moved that the store
// does not know of yet, ...). A test starts the real binary with
// DOCWRIGHT_CRASH_AT=<name>; the process then dies by SIGKILL, as with kill -9,
// the first time it reaches that point, and the test checks that the next start
// recovers. Unset (production), a crash point is one load of a pointer and a
// branch.
//
// The names are listed in kCrashPoints; a process started with a name not in the
// list refuses to start (CheckCrashPointSetting), so a test cannot arm a point
// that is never reached by a typo. Thread-safe.
#pragma once

#include <array>
#include <string_view>

#include "core/status.h"

namespace docwright {

// Every crash point, in the order a turn passes them.
inline constexpr std::array<std::string_view, 10> kCrashPoints = {
    "fetch.transfer",        // the mirror's fetch has received part of the objects
    "commit.written",        // the turn's commit is in the mirror, not on the remote
    "push.transfer",         // part of the pack is sent to the remote (transport)
    "push.objects-copied",   // the objects are in the remote, the branch not moved (on disk)
    "push.ref-locked",       // git's <ref>.lock in the remote is held (on disk)
    "push.ref-moved",        // the branch moved on the remote; the store does not know
    "pr.opened",             // the pull request exists; prLink is not recorded
    "store.turn-recording",  // inside the store's transaction that records the outcome
    "local-pr.recording",    // inside the store's transaction that records a local pull request
    "webhook.claimed",       // a webhook delivery is claimed (its event committed), not sent
};

// A name from kCrashPoints, checked when the program is compiled: an unknown
// name does not build.
struct CrashPointName {
  consteval CrashPointName(const char* point) : name(point) {
    bool known = false;
    for (std::string_view p : kCrashPoints) known = known || p == name;
    if (!known) throw "not a name in kCrashPoints";
  }
  std::string_view name;
};

// Dies at once (SIGKILL) if DOCWRIGHT_CRASH_AT names `point`, after saying so on
// stderr ("docwright: crash point <name> reached").
void CrashPoint(CrashPointName point);

// OK when DOCWRIGHT_CRASH_AT is unset or names a crash point; InvalidArgument
// naming the known points otherwise. Commands that run turns call it at start.
Status CheckCrashPointSetting();

// The armed point, or empty.
std::string_view ArmedCrashPoint();

}  // namespace docwright
