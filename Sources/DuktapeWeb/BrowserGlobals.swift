import DuktapeCore
import Foundation

/// The browser globals a page has that need no network: `window` and `self` (the global object,
/// which becomes an `EventTarget`), `DOMException`, `btoa`/`atob`, `TextEncoder`/`TextDecoder`
/// (UTF-8, with `stream: true` across chunks), `URL` and `URLSearchParams` (WHATWG parsing,
/// `searchParams` live), `EventTarget`, `Event`, `CustomEvent`, `Headers`, `AbortController`
/// and `AbortSignal`.
///
/// ```swift
/// let context = JSContext()!
/// try BrowserGlobals.install(in: context)
/// print(context.evaluateScript("atob(btoa('\\u00ff'))")!)                                  // prints: ÿ
/// print(context.evaluateScript("new TextDecoder().decode(new TextEncoder().encode('é'))")!)  // prints: é
/// ```
///
/// They follow the WHATWG and WebIDL specifications where a headless page can: argument
/// conversions (a symbol is a TypeError where a string is expected), `DOMException` names and
/// legacy codes (`InvalidCharacterError` from `atob`, code 5), forgiving base64, replacement
/// characters for malformed UTF-8 (or a TypeError with `fatal: true`), a byte-order mark
/// stripped unless `ignoreBOM`. `TextDecoder` knows UTF-8 only (its labels `utf-8`, `utf8`,
/// `unicode-1-1-utf-8`…); any other label is a RangeError, as an unknown one is in browsers.
/// An exception thrown by an event listener goes to the context's `exceptionHandler`, and the
/// other listeners still run.
public enum BrowserGlobals {
    /// Installs the globals in `context` (the page host does it for its pages). Throws the
    /// `JSException` of a context that cannot run the set-up (its memory limit is reached).
    ///
    /// ```swift
    /// try BrowserGlobals.install(in: context)
    /// ```
    public static func install(in context: JSContext) throws {
        _ = try install(in: context, fetch: nil)
    }

    /// `install(in:)`, with `fetch`, `Request`, `Response` and `ReadableStream` too when the
    /// page's networking natives are given (`PageNetwork`); returns what the page host keeps.
    static func install(in context: JSContext, fetch: PageSeam.FetchNatives?, webSocket: PageSeam.WebSocketNatives? = nil) throws -> PageSeam.Globals {
        let natives = PageSeam.BrowserNatives(
            base64Encode: JSValue(newFunctionIn: context) { (text: String) in Base64.encodeLatin1(text) },
            base64Decode: JSValue(newFunctionIn: context) { (text: String) in Base64.decodeForgiving(text) },
            utf8Encode: JSValue(newFunctionIn: context) { (text: String) in Data(text.utf8) },
            utf8Decode: JSValue(newFunctionIn: context) { (bytes: Data, fatal: Bool) -> String? in
                fatal ? String(validating: bytes, as: UTF8.self) : String(decoding: bytes, as: UTF8.self)
            },
            utf8Fits: JSValue(newFunctionIn: context) { (text: String, capacity: Int) in
                utf16Prefix(of: text, fittingUTF8Bytes: capacity)
            },
            urlParse: JSValue(newFunctionIn: context) { (input: String, base: String?) -> [String]? in
                guard let base else { return URLRecord.parse(input)?.attributes }
                return URLRecord.parse(base).flatMap { URLRecord.parse(input, base: $0) }?.attributes
            },
            urlSet: JSValue(newFunctionIn: context) { (href: String, attribute: String, value: String) -> [String]? in
                guard var url = URLRecord.parse(href), url.set(attribute, to: value) else { return nil }
                return url.attributes
            },
            usv: JSValue(newFunctionIn: context) { (text: String) in text },  // lone surrogates become U+FFFD on the way
            formParse: JSValue(newFunctionIn: context) { (text: String) in FormURLEncoding.parse(text) },
            formSerialize: JSValue(newFunctionIn: context) { (pairs: [String]) in FormURLEncoding.serialize(pairs) },
            report: JSValue(newFunctionIn: context) { (error: JSValue) in
                // As the core reports exceptions (the handler's re-entry budget, deadlines included).
                JSContext.current()?.notifyException(error)
            })
        return try PageSeam.installGlobals(in: context, natives: natives, fetch: fetch, webSocket: webSocket)
    }

    /// How many UTF-16 code units of `text` (whole characters) encode to at most `capacity`
    /// bytes of UTF-8 (`TextEncoder.encodeInto`).
    static func utf16Prefix(of text: String, fittingUTF8Bytes capacity: Int) -> Int {
        var bytes = 0, units = 0
        for scalar in text.unicodeScalars {
            let width = UTF8.width(scalar)
            guard bytes + width <= capacity else { break }
            bytes += width
            units += UTF16.width(scalar)
        }
        return units
    }
}
