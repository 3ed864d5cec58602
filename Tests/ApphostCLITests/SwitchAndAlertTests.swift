import XCTest

/// `ctl switch`, `ctl home` and `ctl alert`: the scene transitions of S3, S4 and S5.
/// Run by SwitchAndAlertTests (process isolation) and SwitchAndAlertInProcessTests (none).
class SwitchAndAlertCases: HostTestCase {
    // CONTRACT S3, S5: the old guest resigns and enters background, then the new one enters
    // the foreground and becomes active, in that order.
    func switchSendsOldGuestToBackgroundThenBringsNewOneForward() throws {
        let host = try startBothSamples()
        let mark = host.events.count
        let reply = try ctlSucceeds("switch", Self.swiftID)
        XCTAssertEqual(reply.stdout, ["\(Self.swiftID) is in the foreground"])
        try host.waitForLog(Self.swiftID, "callback did_become_active", prefix: true, after: mark)

        let after = host.events.since(mark)
        XCTAssertEqual(after.loggedCallbacks(of: Self.cID), ["will_resign_active", "did_enter_background"])
        XCTAssertEqual(after.loggedCallbacks(of: Self.swiftID), ["will_enter_foreground", "did_become_active"])
        let delivered = after.filter { $0.kind == .callback }.map { "\($0.guest ?? "?") \($0.name ?? "?")" }
        XCTAssertEqual(
            delivered,
            [
                "\(Self.cID) will_resign_active", "\(Self.cID) did_enter_background",
                // S11: its scene, connected in background, learns its size as it is first shown.
                "\(Self.swiftID) did_change_size", "\(Self.swiftID) will_enter_foreground",
                "\(Self.swiftID) did_become_active",
            ])
        XCTAssertTrue(after.filter { $0.kind == .sceneState }.allSatisfy { $0.reason == .requested })  // A5

        let status = try status()
        XCTAssertEqual(status.foreground, Self.swiftID)
        XCTAssertEqual(status.guest(Self.cID)?.appState, .background)
        XCTAssertEqual(status.guest(Self.swiftID)?.appState, .active)
    }

    // CONTRACT S5: ctl names a guest by its descriptor name too, in any case.
    func switchAcceptsTheDescriptorNameInAnyCase() throws {
        let host = try startBothSamples()
        let mark = host.events.count
        try ctlSucceeds("switch", "swift SAMPLE")
        try host.waitForLog(Self.swiftID, "callback did_become_active", prefix: true, after: mark)
        XCTAssertEqual(try status().foreground, Self.swiftID)
    }

    func switchToAnUnknownGuestListsTheLoadedOnes() throws {
        _ = try startBothSamples()
        let result = try ctl("switch", "org.example.missing")
        assertOneLineError(result, containing: "no guest org.example.missing")
        XCTAssertTrue(result.stderr.first?.contains("\(Self.cID), \(Self.swiftID)") == true, "\(result.stderr)")
    }

    // CONTRACT S3: home sends the foreground guest to background, and says which; home with
    // nothing in the foreground is no error (as on iOS), and says so.
    func homeSendsTheForegroundGuestToBackground() throws {
        let host = try startBothSamples()
        let mark = host.events.count
        XCTAssertEqual(try ctlSucceeds("home").stdout, ["\(Self.cID) went to background"])
        try host.waitForLog(Self.cID, "callback did_enter_background", prefix: true, after: mark)
        XCTAssertEqual(
            host.events.since(mark).loggedCallbacks(of: Self.cID), ["will_resign_active", "did_enter_background"])
        let status = try status()
        XCTAssertNil(status.foreground)
        XCTAssertEqual(status.guest(Self.cID)?.appState, .background)
        XCTAssertEqual(try ctlSucceeds("home").stdout, ["nothing is in the foreground"])
    }

    // CONTRACT S4: an alert sends only will-resign-active; dismissing it sends did-become-active,
    // with no background transition in between.
    func alertOnlyResignsActiveAndDismissReactivates() throws {
        let host = try startBothSamples()
        let mark = host.events.count
        try ctlSucceeds("alert")
        try host.waitForLog(Self.cID, "callback will_resign_active", prefix: true, after: mark)
        let covered = try status()
        XCTAssertTrue(covered.alert)
        XCTAssertEqual(covered.guest(Self.cID)?.appState, .inactive)
        XCTAssertEqual(covered.guest(Self.cID)?.scenes.map(\.state), [.foregroundInactive])

        let dismissed = host.events.count
        try ctlSucceeds("alert", "--dismiss")
        try host.waitForLog(Self.cID, "callback did_become_active", prefix: true, after: dismissed)
        let uncovered = try status()
        XCTAssertFalse(uncovered.alert)
        XCTAssertEqual(uncovered.guest(Self.cID)?.appState, .active)

        let after = host.events.since(mark)
        XCTAssertEqual(after.loggedCallbacks(of: Self.cID), ["will_resign_active", "did_become_active"])
        XCTAssertEqual(after.loggedCallbacks(of: Self.swiftID), [], "a background guest is not covered by the alert")
        XCTAssertFalse(after.contains { $0.kind == .sceneState && $0.to == "background" })
    }

    // CONTRACT S4: one alert at a time; nothing to dismiss without one.
    func alertTwiceAndDismissWithoutAlertAreErrors() throws {
        _ = try startBothSamples()
        assertOneLineError(try ctl("alert", "--dismiss"), containing: "no alert is shown")
        try ctlSucceeds("alert")
        assertOneLineError(try ctl("alert"), containing: "an alert is already shown")
    }
}

// CONTRACT S3, S4, S5: the same cases with each isolation. (Linux's XCTest runs only the tests a
// class declares, hence one line for each.)
final class SwitchAndAlertTests: SwitchAndAlertCases {
    func testSwitchSendsOldGuestToBackgroundThenBringsNewOneForward() throws {
        try switchSendsOldGuestToBackgroundThenBringsNewOneForward()
    }
    func testSwitchAcceptsTheDescriptorNameInAnyCase() throws { try switchAcceptsTheDescriptorNameInAnyCase() }
    func testSwitchToAnUnknownGuestListsTheLoadedOnes() throws { try switchToAnUnknownGuestListsTheLoadedOnes() }
    func testHomeSendsTheForegroundGuestToBackground() throws { try homeSendsTheForegroundGuestToBackground() }
    func testAlertOnlyResignsActiveAndDismissReactivates() throws { try alertOnlyResignsActiveAndDismissReactivates() }
    func testAlertTwiceAndDismissWithoutAlertAreErrors() throws { try alertTwiceAndDismissWithoutAlertAreErrors() }
}

final class SwitchAndAlertInProcessTests: SwitchAndAlertCases {
    override class var isolation: String? { "none" }

    func testSwitchSendsOldGuestToBackgroundThenBringsNewOneForward() throws {
        try switchSendsOldGuestToBackgroundThenBringsNewOneForward()
    }
    func testSwitchAcceptsTheDescriptorNameInAnyCase() throws { try switchAcceptsTheDescriptorNameInAnyCase() }
    func testSwitchToAnUnknownGuestListsTheLoadedOnes() throws { try switchToAnUnknownGuestListsTheLoadedOnes() }
    func testHomeSendsTheForegroundGuestToBackground() throws { try homeSendsTheForegroundGuestToBackground() }
    func testAlertOnlyResignsActiveAndDismissReactivates() throws { try alertOnlyResignsActiveAndDismissReactivates() }
    func testAlertTwiceAndDismissWithoutAlertAreErrors() throws { try alertTwiceAndDismissWithoutAlertAreErrors() }
}
