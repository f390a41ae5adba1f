#pragma once
// Adapts the shared HTTP client to the source-facing Fetcher interface.
#include <memory>

#include "http/client.hpp"
#include "sources/source.hpp"

namespace pipeline {

class ClientFetcher final : public sources::Fetcher {
 public:
  explicit ClientFetcher(std::shared_ptr<http::Client> client, std::uint64_t session = 0)
      : Fetcher(session), client_(std::move(client)) {}
  http::Response get(const http::Request& request) override { return client_->fetch(request); }
  bool replaying() const override { return client_->replaying(); }

 private:
  std::shared_ptr<http::Client> client_;
};

}  // namespace pipeline
