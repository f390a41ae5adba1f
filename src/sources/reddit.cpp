#include "sources/common.hpp"
namespace sources {
namespace {
class Stub final : public Source {
 public:
  std::string_view id() const override { return "reddit"; }
  std::string_view name() const override { return "reddit"; }
  SourceResult search(const Query&, Env&) const override { return {model::SourceState::error, "not implemented", {}, 0}; }
};
}  // namespace
std::unique_ptr<Source> make_reddit() { return std::make_unique<Stub>(); }
}  // namespace sources
