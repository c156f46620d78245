import Foundation

/// `loader.html`, the page a `WebLoader` runs: a SwiftPM resource of this module, found in the
/// resource bundle beside the program (or the test runner), read once.
///
/// The lookup is ours rather than `Bundle.module`'s, whose accessor stops the process when the
/// bundle is missing (a program copied without its resources): here that is an error.
enum LoaderPage {
    static let bundleName = "DuktapeCore_DuktapeWeb.resources"

    static func html() throws -> String {
        switch cached {
        case .success(let html): return html
        case .failure(let error): throw error
        }
    }

    private static let cached: Result<String, WebLoaderError> = {
        var directories = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
        if let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            directories.append(executable.deletingLastPathComponent())
        }
        directories += Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        for directory in directories {
            let file = directory.appendingPathComponent(bundleName).appendingPathComponent("loader.html")
            if let data = FileManager.default.contents(atPath: file.path) {
                return .success(String(decoding: data, as: UTF8.self))
            }
        }
        return .failure(.invalidRequest(
            requestID: "", message: "loader.html was not found: the \(bundleName) directory must be beside the program"))
    }()
}
