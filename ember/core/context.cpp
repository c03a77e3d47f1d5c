// The process-wide Context.
#include "ember/core/context.h"

namespace ember {
Context& globalContext() {
  static Context c;
  return c;
}
}  // namespace ember
