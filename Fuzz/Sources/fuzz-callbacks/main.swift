import Foundation
import FuzzSupport

exit(runFuzzer { data, size in fuzzCallbacks(data, size) })
