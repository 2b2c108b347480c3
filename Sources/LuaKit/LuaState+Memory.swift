import CLuaShim

extension LuaState {
    /// The bytes the state's small-block heap holds in chunks (CLuaShim's heap.c), in use or
    /// free; 0 for a state with another allocator. What a full `collectgarbage()` can give back
    /// shows here (tests; blocks over 1 KiB come from malloc and are not counted).
    package var smallBlockHeapBytes: Int {
        var ud: UnsafeMutableRawPointer?
        // SAFETY: lua_getallocf is class `-` (never raises); the heap is only read, on the Lua thread.
        guard let allocator = lua_getallocf(pointer, &ud), let ud,
              unsafeBitCast(allocator, to: UnsafeRawPointer.self) == unsafeBitCast(lk_heap_alloc as lua_Alloc, to: UnsafeRawPointer.self)
        else { return 0 }
        return Int(lk_heap_size(OpaquePointer(ud)))
    }
}
