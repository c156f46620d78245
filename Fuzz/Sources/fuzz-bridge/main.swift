import Foundation
import FuzzSupport

exit(runFuzzer { data, size in fuzzBridge(data, size) })
