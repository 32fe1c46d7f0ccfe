import CanopySDL
import XCTest

/// The arena limit the process asks glibc for, and the count it reports.
final class MallocArenasTests: XCTestCase {
    func testTheLimitIsWantedUnlessTheEnvironmentSetsTheArenaCount() {
        XCTAssertTrue(MallocArenas.limitWanted(environment: [:]))
        XCTAssertTrue(MallocArenas.limitWanted(environment: ["GLIBC_TUNABLES": "glibc.malloc.tcache_count=0"]))
        XCTAssertFalse(MallocArenas.limitWanted(environment: ["MALLOC_ARENA_MAX": "4"]))
        XCTAssertFalse(MallocArenas.limitWanted(environment: ["GLIBC_TUNABLES": "glibc.malloc.check=0:glibc.malloc.arena_max=2"]))
    }

    func testTheArenasAreCountedFromTheAllocatorsOwnReport() throws {
        // The test process has at least its main arena; the count comes from malloc_info's XML.
        let count = try XCTUnwrap(MallocArenas.count())
        XCTAssertGreaterThanOrEqual(count, 1)
    }
}
