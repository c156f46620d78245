import Foundation
import FuzzSupport

exit(runFuzzer { data, size in fuzzPeers(data, size) })
