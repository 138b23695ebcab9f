import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Every call whose form differs between Linux and Apple platforms, in one place: files (read-ahead
/// and page-cache hints, preallocation, read-only mounts, a mode set through a name-only
/// descriptor), threads (names, priority) and the process (the boot it runs in, its resident
/// memory, its executable).
///
/// The rest of the package asks this type and holds no platform branches of its own, so a port
/// reads these files and nothing else. The Linux branches are compiled and tested on every run;
/// the Darwin branches are written for macOS and iOS and are not compiled on this project's
/// machines. Decoding in worker processes is Linux-only by design (Apple platforms decode with
/// ImageIO in-process), so `ImageDecoding/Isolation` is not routed through here.
package enum Platform {}
