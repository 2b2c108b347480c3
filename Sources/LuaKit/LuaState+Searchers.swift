import CLuaShim

extension LuaState {
    /// Finds a module for `require`: pushes its loader and returns the extra value `require`
    /// passes to it (conventionally where the module came from), or returns nil with nothing
    /// pushed when it has no module of that name.
    public typealias ModuleFinder = (LuaState, String) throws -> String?

    /// [-0, +0] Extends the searcher at `position` of `package.searchers` (2 is the
    /// `package.path` one) with modules that `find` knows: they are loaded when that searcher
    /// finds nothing, and when `find` knows nothing either, the searcher's own answer stands. So
    /// `package.searchers` keeps its entries and `require`'s "module not found" message is the
    /// one `lua5.4` prints. Does nothing when the package library is not open.
    public func extendModuleSearcher(position: Int, _ find: @escaping ModuleFinder) throws(LuaError) {
        // Assignments to package.searchers may raise (a proxy table): run as Lua, protected.
        try load("""
            local fallback, position = ...
            if type(package) == "table" and type(package.searchers) == "table" then
              local original = package.searchers[position]
              if type(original) == "function" then
                package.searchers[position] = function(name)
                  local found, extra = original(name)
                  if type(found) == "function" then return found, extra end
                  local loader, path = fallback(name)
                  if loader then return loader, path end
                  return found, extra
                end
              end
            end
            """, name: "=(searcher)")
        push(function: "searcher") { call in
            let module = try call.string(1)
            guard let extra = try find(call.state, module) else { return 0 }
            call.state.push(extra)
            return 2
        }
        push(position)
        try pcall(arguments: 2, results: 0)
    }
}
