extension JSContext {
    /// A property key that scripts can neither name nor list: Duktape's hidden symbol `name`
    /// (`Object.getOwnPropertySymbols` and `Reflect.ownKeys` leave it out, and no source text
    /// can spell it). For this package's own modules, which keep their state on objects they
    /// hand to scripts (DuktapeWeb's `Headers`, `Blob`…): a script can then neither read nor
    /// forge that state. Not public: JavaScriptCore has no such thing.
    package func hiddenKey(_ name: String) throws -> JSValue {
        try rethrowingSwiftErrors { () throws(JSException) -> JSValue in
            try withStack { stack throws(JSException) -> JSValue in
                try stack.reserve(1)
                try stack.pushHiddenSymbol(name)
                return try stack.value(at: -1)
            }
        }
    }
}

extension JSContext {
    /// A value this package's own modules keep on the context's realm: an own property of its
    /// global object under the hidden key `name`, defined whatever a script did to the global
    /// object (frozen, sealed, made non-extensible). DuktapeRuntime keeps the realm's
    /// primordials there. Undefined until set.
    package func realmSlot(_ name: String) throws -> JSValue {
        try globalObject.forProperty(hiddenKey(name))
    }

    /// Sets `realmSlot(name)`.
    package func setRealmSlot(_ name: String, to value: JSValue) throws {
        try rethrowingSwiftErrors { () throws(JSException) in
            try withStack { stack throws(JSException) in
                try stack.setGlobalHiddenSlot(name, to: value)
            }
        }
    }
}
