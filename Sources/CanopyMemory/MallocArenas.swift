import CMalloc
import Foundation

/// glibc's arenas: how many the allocator keeps, the other half of returning free memory
/// (`MemoryTrimmer`), and what they hold in use (the soak's figures).
///
/// glibc gives each thread that allocates an arena of its own (up to 8 a core, shared beyond
/// that). `malloc_trim` hands back the free pages inside every arena, but the free space at the
/// end of an arena only for the main one; another arena gives its end back when a free leaves
/// more there than the trim threshold, which glibc raises up to 64 MB as large blocks come and
/// go. Bitmaps of 0.8-3 MB are drawn, and photos decoded, on worker threads, so what a burst
/// left at the ends of their arenas stayed resident: in a 10-minute soak the anonymous memory
/// beyond the heap in use went from 8 to 17 MB while the heap in use stayed at 59 MB. With one
/// arena for every thread the trim reaches it all (about 4 MB beyond the heap in use, every
/// minute), and the benchmarks' differences stayed within their run-to-run spread (the display
/// workers' cards per second, scrolling frame times: docs/ARCHITECTURE.md, Soak). Every
/// thread's allocations then share that arena, and can wait for a trim.
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
    /// cannot say, or is not the allocator in use (a sanitizer's replaces it: glibc's main arena
    /// then has nothing).
    public static func count() -> Int? {
        guard glibcIsTheAllocator else { return nil }
        // open_memstream keeps the two addresses and writes them at fclose: slots of our own.
        let buffer = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: 1)
        let size = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        buffer.initialize(to: nil)
        size.initialize(to: 0)
        defer {
            free(buffer.pointee)
            buffer.deallocate()
            size.deallocate()
        }
        guard let stream = open_memstream(buffer, size) else { return nil }
        let status = malloc_info(0, stream)
        fclose(stream)
        guard status == 0, let text = buffer.pointee else { return nil }
        return count(fromMallocInfo: String(cString: text))
    }

    /// The heaps (arenas) in `malloc_info`'s XML, or nil if it lists none.
    public static func count(fromMallocInfo xml: String) -> Int? {
        let heaps = xml.components(separatedBy: "<heap nr=").count - 1
        return heaps > 0 ? heaps : nil
    }

    /// The bytes the allocator has handed out and not had back (`mallinfo2`: in use in the
    /// arenas, plus the blocks mapped on their own), or nil when glibc's is not the allocator in
    /// use (a sanitizer's replaces it: glibc's main arena then has nothing).
    public static func heapInUseBytes() -> Int? {
        let info = mallinfo2()
        guard info.arena > 0 else { return nil }
        return Int(info.uordblks + info.hblkhd)
    }

    /// False under a sanitizer, whose allocator replaces glibc's.
    private static var glibcIsTheAllocator: Bool { heapInUseBytes() != nil }
}
