import Foundation
import FuzzSupport

exit(runFuzzer { data, size in fuzzEvaluate(data, size) })
