import CanopyMemory
import XCTest

/// The arena limit the process asks glibc for, and the count it reports.
final class MallocArenasTests: XCTestCase {
    func testTheLimitIsWantedUnlessTheEnvironmentSetsTheArenaCount() {
        XCTAssertTrue(MallocArenas.limitWanted(environment: [:]))
        XCTAssertTrue(MallocArenas.limitWanted(environment: ["GLIBC_TUNABLES": "glibc.malloc.tcache_count=0"]))
        XCTAssertFalse(MallocArenas.limitWanted(environment: ["MALLOC_ARENA_MAX": "4"]))
        XCTAssertFalse(MallocArenas.limitWanted(environment: ["GLIBC_TUNABLES": "glibc.malloc.check=0:glibc.malloc.arena_max=2"]))
    }

    func testTheArenasAreTheHeapsOfTheAllocatorsReport() {
        let two = """
            <malloc version="1">
            <heap nr="0">
            <sizes>
            </sizes>
            <total type="fast" count="0" size="0"/>
            </heap>
            <heap nr="1">
            <sizes>
            </sizes>
            </heap>
            <total type="fast" count="0" size="0"/>
            </malloc>
            """
        XCTAssertEqual(MallocArenas.count(fromMallocInfo: two), 2)
        XCTAssertNil(MallocArenas.count(fromMallocInfo: "<malloc version=\"1\">\n</malloc>"))
        // This process's own report: at least the main arena, unless a sanitizer's allocator
        // has replaced glibc's.
        if let count = MallocArenas.count() { XCTAssertGreaterThanOrEqual(count, 1) }
    }
}
