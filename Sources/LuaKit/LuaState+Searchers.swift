import CLuaShim

extension LuaState {
    /// Finds a module for `require`: pushes its loader and returns the extra value `require`
    /// passes to it (conventionally where the module came from), or returns nil with nothing
    /// pushed when it has no module of that name.
    public typealias ModuleFinder = (LuaState, String) throws -> String?

    /// [-0, +0] Inserts a searcher into `package.searchers` at `position` (1 is the preload
    /// searcher, 2 the `package.path` one): modules that `find` knows are loaded from it, after
    /// every searcher before that position has failed. `name` appears in `require`'s "module
    /// not found" message. Does nothing when the package library is not open.
    public func addModuleSearcher(position: Int, name: String, _ find: @escaping ModuleFinder) throws(LuaError) {
        // table.insert may raise (a non-table `package.searchers`), so it runs as Lua, protected.
        try load("""
            local searcher, position = ...
            if type(package) == "table" and type(package.searchers) == "table" then
              table.insert(package.searchers, math.min(position, #package.searchers + 1), searcher)
            end
            """, name: "=(searcher)")
        push(function: "searcher") { call in
            let module = try call.string(1)
            if let extra = try find(call.state, module) {
                call.state.push(extra)
                return 2
            }
            call.state.push("no \(name) module '\(module)'")
            return 1
        }
        push(position)
        try pcall(arguments: 2, results: 0)
    }
}
