// The Writer capability for tests and benchmarks (persist/writer.hpp): production code
// has no definition of persist::testing::writer(), so it cannot mint one.
#include "persist/writer.hpp"

namespace persist::testing {

const Writer& writer() {
  static const Writer* w = new Writer();  // leaked: used until exit
  return *w;
}

}  // namespace persist::testing
