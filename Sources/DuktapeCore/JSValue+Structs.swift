import Foundation

/// JavaScriptCore's struct support: points, ranges, rects and sizes as plain objects.
extension JSValue {
    /// `{x, y}` from a point.
    ///
    /// ```swift
    /// print(JSValue(point: CGPoint(x: 1, y: 2), in: context)!.forProperty("y")!.toDouble())   // prints: 2.0
    /// ```
    public convenience init!(point: CGPoint, in context: JSContext!) {
        self.init(fields: ["x": Double(point.x), "y": Double(point.y)], in: context)
    }

    /// `{location, length}` from a range.
    ///
    /// ```swift
    /// print(JSValue(range: NSRange(location: 2, length: 5), in: context)!.toRange().length)   // prints: 5
    /// ```
    public convenience init!(range: NSRange, in context: JSContext!) {
        self.init(fields: ["location": Double(range.location), "length": Double(range.length)], in: context)
    }

    /// `{x, y, width, height}` from a rect.
    public convenience init!(rect: CGRect, in context: JSContext!) {
        self.init(
            fields: [
                "x": Double(rect.origin.x), "y": Double(rect.origin.y),
                "width": Double(rect.size.width), "height": Double(rect.size.height),
            ], in: context)
    }

    /// `{width, height}` from a size.
    public convenience init!(size: CGSize, in context: JSContext!) {
        self.init(fields: ["width": Double(size.width), "height": Double(size.height)], in: context)
    }

    /// A plain object with `fields` defined in their order, JavaScriptCore's (a Swift
    /// dictionary's order changes from run to run).
    private convenience init!(fields: KeyValuePairs<String, Double>, in context: JSContext!) {
        self.init(newObjectIn: context)
        for (key, value) in fields {
            setValue(value, forProperty: key)
        }
    }

    /// Reads `x` and `y` with `toDouble()`.
    ///
    /// ```swift
    /// context.evaluateScript("({x: 1, y: 2})")!.toPoint()   // (1.0, 2.0)
    /// ```
    @discardableResult
    public func toPoint() -> CGPoint {
        CGPoint(x: double("x"), y: double("y"))
    }

    /// Reads `location` and `length` as unsigned integers (negative or NaN values give 0).
    @discardableResult
    public func toRange() -> NSRange {
        NSRange(location: unsigned("location"), length: unsigned("length"))
    }

    /// Reads `x`, `y`, `width` and `height` with `toDouble()`.
    @discardableResult
    public func toRect() -> CGRect {
        CGRect(x: double("x"), y: double("y"), width: double("width"), height: double("height"))
    }

    /// Reads `width` and `height` with `toDouble()`.
    @discardableResult
    public func toSize() -> CGSize {
        CGSize(width: double("width"), height: double("height"))
    }

    private func double(_ name: String) -> Double {
        forProperty(name).toDouble()
    }

    private func unsigned(_ name: String) -> Int {
        let number = double(name)
        guard number.isFinite, number >= 0 else { return 0 }
        return number >= Double(Int.max) ? Int.max : Int(number)
    }
}
