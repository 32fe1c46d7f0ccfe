import CMalloc
import Foundation

/// How many arenas glibc's allocator keeps, the other half of returning free memory
/// (`MemoryTrimmer`).
///
/// glibc gives threads that allocate at the same time arenas of their own. `malloc_trim` hands
/// back the free pages inside every arena, but the free space at the end of an arena only for
/// the main one; another arena gives its end back when a free leaves more there than the trim
/// threshold, a threshold glibc raises up to 64 MB as large blocks come and go. The display
/// workers draw card bitmaps of 0.5-3 MB in such arenas, so whatever a burst left at their ends
/// stayed resident: in a soak the anonymous memory beyond the heap in use went from 8 to 17 MB
/// while the heap in use stayed at 59 MB. With one arena for every thread the trim reaches it
/// all (4 MB beyond the heap in use, every minute), and the benchmarks could not tell the
/// difference (display workers' cards per second, scrolling frame times: see
/// docs/ARCHITECTURE.md, Returning free memory).
public enum MallocArenas {
    /// Whether the process should be limited to one arena: yes, unless the environment sets
    /// the arena count itself (`MALLOC_ARENA_MAX`, or `glibc.malloc.arena_max` in
    /// `GLIBC_TUNABLES`), which is left as it says.
    public static func limitWanted(environment: [String: String]) -> Bool {
        environment["MALLOC_ARENA_MAX"] == nil && !(environment["GLIBC_TUNABLES"] ?? "").contains("glibc.malloc.arena_max")
    }

    /// Limits glibc's allocator to its main arena (`mallopt(M_ARENA_MAX, 1)`) unless the
    /// environment says otherwise; true if it did. Call it first thing in `main`: a thread
    /// that has allocated already keeps the arena it has.
    @discardableResult
    public static func limitToOne(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        guard limitWanted(environment: environment) else { return false }
        return mallopt(M_ARENA_MAX, 1) == 1
    }

    /// The arenas glibc's allocator has now (the heaps `malloc_info` lists), or nil when it
    /// cannot say.
    public static func count() -> Int? {
        var buffer: UnsafeMutablePointer<CChar>?
        var size = 0
        guard let stream = open_memstream(&buffer, &size) else { return nil }
        let status = malloc_info(0, stream)
        fclose(stream)
        defer { free(buffer) }
        guard status == 0, let buffer else { return nil }
        let heaps = String(cString: buffer).components(separatedBy: "<heap nr=").count - 1
        return heaps > 0 ? heaps : nil
    }
}
