// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Canopy",
    products: [
        .executable(name: "rainforest", targets: ["Rainforest"]),
        .executable(name: "bare-sdl-floor", targets: ["BareSDLFloor"]),
        .library(name: "Canopy", targets: ["Canopy"]),
        .library(name: "CanopySDL", targets: ["CanopySDL"]),
        .library(name: "CanopyMemory", targets: ["CanopyMemory"]),
        .library(name: "CanopyGraphics", targets: ["CanopyGraphics"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-algorithms", from: "1.2.0"),
    ],
    targets: [
        .systemLibrary(name: "CSDL2", pkgConfig: "sdl2", providers: [.apt(["libsdl2-dev"])]),
        .systemLibrary(name: "CSDL2Image", pkgConfig: "SDL2_image", providers: [.apt(["libsdl2-image-dev"])]),
        .systemLibrary(name: "CSDL2TTF", pkgConfig: "SDL2_ttf", providers: [.apt(["libsdl2-ttf-dev"])]),
        // Font fallback: the system's font for a character the app's fonts lack.
        .systemLibrary(name: "CFontconfig", pkgConfig: "fontconfig", providers: [.apt(["libfontconfig-dev"])]),
        // The Unicode Bidirectional Algorithm (GNU FriBiDi): where right-to-left and left-to-right text go in a line.
        .systemLibrary(name: "CFriBidi", pkgConfig: "fribidi", providers: [.apt(["libfribidi-dev"])]),
        // glibc's <malloc.h>: malloc_trim and mallopt for the memory trim, mallinfo2 and malloc_info
        // for the soak report (all through CanopyMemory).
        .systemLibrary(name: "CMalloc"),
        // Our own C shims over libjpeg-turbo, libpng, libwebp, giflib, libheif, libexif and Little CMS 2: their fatal errors longjmp,
        // which Swift must never be jumped over, and SDL_image cannot decode to a target size.
        .target(
            name: "CCodecs",
            linkerSettings: [
                .linkedLibrary("jpeg"), .linkedLibrary("png16"), .linkedLibrary("webp"), .linkedLibrary("webpdemux"),
                .linkedLibrary("webpmux"), .linkedLibrary("gif"), .linkedLibrary("heif"), .linkedLibrary("exif"),
                .linkedLibrary("lcms2"),
                .linkedLibrary("crypto"),
            ]
        ),
        .target(
            name: "CanopyGraphics", dependencies: ["CSDL2", "CSDL2Image", "CSDL2TTF", "CCodecs", "CFontconfig", "CFriBidi"]),
        .target(
            name: "Canopy",
            dependencies: [
                "CanopyGraphics",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "Algorithms", package: "swift-algorithms"),
            ]
        ),
        // The C allocator's policy, glibc's: one arena for every thread (MallocArenas), free memory
        // handed back after bursts of work (MemoryTrimmer), the heap figures of the soak.
        .target(name: "CanopyMemory", dependencies: ["Canopy", "CMalloc"]),
        // The SDL backend: the application (window, main loop, events), the compositor, the overlays.
        .target(
            name: "CanopySDL", dependencies: ["Canopy", "CanopyGraphics", "CanopyMemory", "CSDL2", "CSDL2Image", "CSDL2TTF"]),
        // The app: cards and their file format, the card node, the viewer, the commands, the
        // benchmarks and the soak, as a library that the tests and the fuzzers import.
        .target(
            name: "RainforestKit",
            dependencies: [
                "Canopy", "CanopyGraphics", "CanopyMemory", "CanopySDL",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The `rainforest` executable: main.swift alone, calling RainforestKit.
        .executableTarget(name: "Rainforest", dependencies: ["RainforestKit"]),
        // The compositor's floor drawn with bare SDL calls, in C: what `bench --scenario compositor`
        // compares Canopy's compositor against.
        .executableTarget(name: "BareSDLFloor", dependencies: ["CSDL2"]),
        // What every test target shares: waiting for a condition with a hang guard (never for a
        // time), the project's resources and fonts, comparing pictures, a frame loop for node
        // tests and a headless application.
        .target(
            name: "CanopyTestSupport", dependencies: ["Canopy", "CanopyGraphics", "CanopySDL"], path: "Tests/CanopyTestSupport"),
        // Little CMS used directly, the reference the colour tests hold the decoder to.
        .target(name: "CColorReference", path: "Tests/CColorReference", linkerSettings: [.linkedLibrary("lcms2")]),
        .testTarget(
            name: "CanopyGraphicsTests", dependencies: ["CanopyGraphics", "CanopyTestSupport", "CColorReference"],
            exclude: ["Golden"]),
        .testTarget(name: "CanopyTests", dependencies: ["Canopy", "CanopyTestSupport"]),
        .testTarget(name: "CanopyMemoryTests", dependencies: ["CanopyMemory", "CanopyTestSupport"]),
        .testTarget(name: "CanopySDLTests", dependencies: ["CanopySDL", "CanopyTestSupport"]),
        .testTarget(name: "RainforestTests", dependencies: ["RainforestKit", "CanopyMemory", "CanopyTestSupport", "CSDL2"]),
    ],
    swiftLanguageModes: [.v6]
)
