import Foundation

/// Why a `FlexComponent` refused a setting or a call (FlexHybrid's `ERROR1`…`ERROR7` as cases).
///
/// ```swift
/// do {
///     try component.setInterface("flexible") { _ in nil }
/// } catch FlexError.reservedName(let name) {
///     print("\(name) contains 'flex'")
/// }
/// ```
public enum FlexError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The component is attached to a page: its settings are fixed (`ERROR1`).
    case configurationLocked
    /// A name that contains "flex" (reserved for the bridge's own, `ERROR2`).
    case reservedName(String)
    /// A name used twice (`ERROR5`).
    case duplicateName(String)
    /// A name that is empty or not a JavaScript identifier.
    case invalidName(String)
    /// A base URL or allow-list pattern that is not a regular expression.
    case invalidPattern(String)
    /// The component is attached already, or the page has a component.
    case alreadyAttached
    /// The component is not attached to a page.
    case notAttached
    /// The page closed before the call ended.
    case pageClosed
    /// The document the call was made in was replaced before it answered.
    case documentReplaced
    /// `$flex.web.<name>` did not answer within the component's timeout.
    case timedOut(String)
    /// `$flex.web.<name>` threw or rejected (or is not a function): the JavaScript error's
    /// name and message.
    case webFunctionFailed(name: String, errorName: String, message: String)

    /// The reason, in words.
    ///
    /// ```swift
    /// print(FlexError.timedOut("refresh"))
    /// ```
    public var description: String {
        switch self {
        case .configurationLocked: "the component is attached to a page: its settings can no longer change"
        case .reservedName(let name): "'\(name)' contains 'flex', which names the bridge's own functions"
        case .duplicateName(let name): "'\(name)' is already an interface or an action"
        case .invalidName(let name): "'\(name)' is not a JavaScript identifier"
        case .invalidPattern(let pattern): "'\(pattern)' is not a regular expression"
        case .alreadyAttached: "the component is already attached, or the page already has one"
        case .notAttached: "the component is not attached to a page"
        case .pageClosed: "the page was closed"
        case .documentReplaced: "the page loaded another document before answering"
        case .timedOut(let name): "$flex.web.\(name) did not answer in time"
        case .webFunctionFailed(let name, let errorName, let message): "$flex.web.\(name) failed: \(errorName): \(message)"
        }
    }
}
