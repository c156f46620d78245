import Foundation
import FuzzSupport

exit(runFuzzer { data, size in fuzzConvert(data, size) })
