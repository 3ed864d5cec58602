import ApphostModel
import XCTest

/// The audio session's category, mode and options on their own (CONTRACT C1 to C4).
final class AudioConfigurationTests: XCTestCase {
    // CONTRACT C1: every session starts as soloAmbient, default mode, no options.
    func testC1EverySessionStartsAsSoloAmbient() {
        XCTAssertEqual(AudioConfiguration.initial.category, .soloAmbient)
        XCTAssertEqual(AudioConfiguration.initial.mode, .default)
        XCTAssertEqual(AudioConfiguration.initial.options, [])
    }

    // CONTRACT C2: the category table: silenced by the switch, mixes, plays in background.
    func testC2TheCategoryTable() throws {
        let table: [(AudioCategory, silenced: Bool, mixes: Bool, background: Bool)] = [
            (.ambient, true, true, false), (.soloAmbient, true, false, false), (.playback, false, false, true),
            (.record, false, false, true), (.playAndRecord, false, false, true),
        ]
        for (category, silenced, mixes, background) in table {
            XCTAssertEqual(category.isSilencedBySwitch, silenced, "\(category)")
            XCTAssertEqual(try AudioConfiguration(category: category).mixes, mixes, "\(category)")
            XCTAssertEqual(category.playsInBackground, background, "\(category)")
        }
        // Playback and playAndRecord mix only with mixWithOthers.
        XCTAssertTrue(try AudioConfiguration(category: .playback, options: .mixWithOthers).mixes)
        XCTAssertTrue(try AudioConfiguration(category: .playAndRecord, options: .mixWithOthers).mixes)
    }

    // CONTRACT C3: mixWithOthers only for playback and playAndRecord; duckOthers and
    // interruptSpokenAudioAndMixWithOthers imply it; defaultToSpeaker only for playAndRecord; an
    // invalid combination is an error.
    func testC3OptionsAndTheirCategories() throws {
        for category in AudioCategory.allCases {
            let mixing = category == .playback || category == .playAndRecord
            for options: AudioOptions in [.mixWithOthers, .duckOthers, .interruptSpokenAudioAndMixWithOthers] {
                XCTAssertEqual(
                    (try? AudioConfiguration(category: category, options: options)) != nil, mixing,
                    "\(category) \(options)")
            }
            XCTAssertEqual(
                (try? AudioConfiguration(category: category, options: .defaultToSpeaker)) != nil,
                category == .playAndRecord, "\(category) defaultToSpeaker")
        }
        XCTAssertEqual(
            try AudioConfiguration(category: .playback, options: .duckOthers).options, [.duckOthers, .mixWithOthers])
        XCTAssertEqual(
            try AudioConfiguration(category: .playback, options: .interruptSpokenAudioAndMixWithOthers).options,
            [.interruptSpokenAudioAndMixWithOthers, .mixWithOthers])
        XCTAssertThrowsError(try AudioConfiguration(category: .playback, options: AudioOptions(rawValue: 1 << 9))) {
            XCTAssertEqual("\($0)", "unknown audio options 512")
        }
        XCTAssertThrowsError(try AudioConfiguration(category: .ambient, options: .mixWithOthers)) {
            XCTAssertEqual("\($0)", "mixWithOthers is only for the playback and playAndRecord categories")
        }
    }

    // CONTRACT C4: default for every category; spokenAudio and moviePlayback for playback;
    // voiceChat and videoChat for playAndRecord.
    func testC4ModesAndTheirCategories() {
        let allowed: [AudioMode: Set<AudioCategory>] = [
            .default: Set(AudioCategory.allCases), .spokenAudio: [.playback], .moviePlayback: [.playback],
            .voiceChat: [.playAndRecord], .videoChat: [.playAndRecord],
        ]
        for mode in AudioMode.allCases {
            for category in AudioCategory.allCases {
                let valid = (try? AudioConfiguration(category: category, mode: mode)) != nil
                XCTAssertEqual(valid, allowed[mode]?.contains(category), "\(mode) with \(category)")
            }
        }
        XCTAssertThrowsError(try AudioConfiguration(category: .ambient, mode: .spokenAudio)) {
            XCTAssertEqual("\($0)", "the spokenAudio mode is not for the ambient category")
        }
    }

    // Operators read options by name, in `ps --json` and the event stream.
    func testOptionsTravelByName() throws {
        let options: AudioOptions = [.duckOthers, .mixWithOthers]
        let json = String(decoding: try JSONEncoder().encode(options), as: UTF8.self)
        XCTAssertEqual(json, #"["mixWithOthers","duckOthers"]"#)
        XCTAssertEqual(try JSONDecoder().decode(AudioOptions.self, from: Data(json.utf8)), options)
        XCTAssertEqual(options.description, "mixWithOthers,duckOthers")
        XCTAssertEqual(AudioOptions().description, "none")
        XCTAssertThrowsError(try JSONDecoder().decode(AudioOptions.self, from: Data(#"["loud"]"#.utf8)))
    }
}
