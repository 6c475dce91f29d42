// A Store that forwards every call to another and counts the calls, by method
// name: for tests of how many round trips a piece of work costs the store (a
// method of the SQL store is one transaction, ClaimTurn two (one without its
// look first), RenewLeases one per kMaxLeasesPerRenewal leases). AnnouncesChanges
// and Watch, which reach no database, are not counted. Thread-safe; the inner
// store must outlive it.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "fakes/forwarding_store.h"

namespace docwright::testing {

class CountingStore final : public ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;

  // How many times `method` was called since the start or the last Reset.
  int Calls(const std::string& method) const {
    std::lock_guard lock(mu_);
    auto it = calls_.find(method);
    return it == calls_.end() ? 0 : it->second;
  }
  // Every method called, with its count.
  std::map<std::string, int> AllCalls() const {
    std::lock_guard lock(mu_);
    return calls_;
  }
  // The number of leases of each RenewLeases call, in order.
  std::vector<size_t> RenewalBatches() const {
    std::lock_guard lock(mu_);
    return batches_;
  }
  void Reset() {
    std::lock_guard lock(mu_);
    calls_.clear();
    batches_.clear();
  }

  std::vector<Result<LeaseState>> RenewLeases(const std::vector<HeldLease>& leases,
                                              std::chrono::milliseconds lease) override {
    {
      std::lock_guard lock(mu_);
      batches_.push_back(leases.size());
    }
    return ForwardingStore::RenewLeases(leases, lease);
  }

 private:
  void Called(const char* method) const override {
    std::lock_guard lock(mu_);
    ++calls_[method];
  }

  mutable std::mutex mu_;
  mutable std::map<std::string, int> calls_;
  std::vector<size_t> batches_;
};

}  // namespace docwright::testing
