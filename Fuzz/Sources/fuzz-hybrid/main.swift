import Foundation
import FuzzSupport

exit(runFuzzer { data, size in fuzzHybrid(data, size) })
