import Testing
@testable import EscrowReports

/// Numbers as the report writes them, the same in every locale.
struct NumberTextTests {
    @Test(arguments: [(0, "0"), (999, "999"), (1_000, "1,000"), (100_000, "100,000"), (1_234_567, "1,234,567"),
                      (-4_500, "-4,500")])
    func counts(_ value: Int, _ text: String) {
        #expect(NumberText.count(value) == text)
    }

    @Test(arguments: [(0.0, "0.0"), (12.34, "12.3"), (12.35, "12.4"), (-0.04, "0.0"), (-2.5, "-2.5"), (1_234.5, "1,234.5"),
                      (Double.nan, "–"), (Double.infinity, "–")])
    func fractions(_ value: Double, _ text: String) {
        #expect(NumberText.fixed(value) == text)
    }

    @Test func percentagesAndCoordinates() {
        #expect(NumberText.percent(0.375) == "37.5 %")
        #expect(NumberText.percent(1) == "100.0 %")
        #expect(NumberText.coordinate(12) == "12")
        #expect(NumberText.coordinate(12.5) == "12.5")
        #expect(NumberText.coordinate(0.05) == "0.05")
        #expect(NumberText.coordinate(-0.001) == "0")
        #expect(NumberText.coordinate(.nan) == "0")
    }

    @Test(arguments: [(0, 1, 1), (3, 1, 3), (8, 2, 8), (37, 10, 40), (250, 50, 250), (541, 200, 600), (100_000, 20_000, 100_000)])
    func chartScalesAreRound(_ largest: Int, _ step: Int, _ maximum: Int) {
        let scale = ChartScale(largest: largest, ticks: 5)
        #expect(scale.step == step)
        #expect(scale.maximum == maximum)
        #expect(scale.ticks.first == 0 && scale.ticks.last == maximum)
    }
}
