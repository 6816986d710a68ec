//! The quasi-Monte Carlo arithmetic of the pi example, as in Hadoop's `QuasiMonteCarlo`: points
//! of the Halton sequence in bases 2 and 3 fall into the unit square, and the share inside the
//! inscribed circle estimates π/4.

/// The radical inverse of `index` in `base`: its base-`base` digits mirrored around the radix
/// point (6 = 110₂ becomes 0.011₂ = 0.375).
fn radical_inverse(mut index: u64, base: u64) -> f64 {
    let mut inverse = 0.0;
    let mut weight = 1.0 / base as f64;
    while index > 0 {
        inverse += (index % base) as f64 * weight;
        index /= base;
        weight /= base as f64;
    }
    inverse
}

/// Point number `index` of the two-dimensional Halton sequence (bases 2 and 3), in the unit
/// square. Point 0 is the corner (0, 0); the sequence fills the square evenly, without the
/// clumps of pseudo-random points, and is the same on every run.
pub fn halton_point(index: u64) -> (f64, f64) {
    (radical_inverse(index, 2), radical_inverse(index, 3))
}

/// The share of map task `index` (from 0) with `samples` points: the points
/// `index * samples + 1 ..= (index + 1) * samples` of the Halton sequence, so maps never
/// overlap, and how many of them fall inside the circle of diameter 1 centred in the square.
/// Returns `(inside, total)`, `total` being `samples`.
///
/// Deterministic: the same map always counts the same. Indices beyond `u64::MAX` saturate, which
/// [`PiOptions::validate`](super::PiOptions::validate) and [`PiMapTask`](super::PiMapTask)
/// rule out.
pub fn run_pi_map(index: u32, samples: u64) -> (u64, u64) {
    // Point 0 is a corner of the square, outside the circle: start after it, as Hadoop does.
    let first = u64::from(index).saturating_mul(samples).saturating_add(1);
    let inside = (0..samples)
        .filter(|offset| {
            let (x, y) = halton_point(first.saturating_add(*offset));
            let (dx, dy) = (x - 0.5, y - 0.5);
            dx * dx + dy * dy <= 0.25
        })
        .count();
    (inside as u64, samples)
}

/// The digits after the point in the estimate, as Hadoop prints it.
const ESTIMATE_DECIMALS: usize = 20;

/// The estimate `4 * inside / total` with 20 decimals rounded half up, computed exactly (as
/// Hadoop's `BigDecimal` does): `3.14120000000000000000`. `total` of 0 gives `NaN`.
pub fn format_estimate(inside: u64, total: u64) -> String {
    if total == 0 {
        return "NaN".to_owned();
    }
    let numerator = u128::from(inside) * 4;
    let denominator = u128::from(total);
    let whole = numerator / denominator;
    let mut remainder = numerator % denominator;
    let mut decimals = Vec::with_capacity(ESTIMATE_DECIMALS);
    for _ in 0..ESTIMATE_DECIMALS {
        remainder *= 10;
        decimals.push((remainder / denominator) as u8);
        remainder %= denominator;
    }
    let mut whole = whole;
    if remainder * 2 >= denominator {
        // Carry the rounding up through the nines.
        let mut carry = true;
        for digit in decimals.iter_mut().rev() {
            if *digit == 9 {
                *digit = 0;
            } else {
                *digit += 1;
                carry = false;
                break;
            }
        }
        if carry {
            whole += 1;
        }
    }
    let digits: String = decimals
        .iter()
        .map(|digit| char::from(b'0' + digit))
        .collect();
    format!("{whole}.{digits}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn radical_inverses_mirror_the_digits() {
        let base2: Vec<f64> = (1..=4).map(|i| radical_inverse(i, 2)).collect();
        assert_eq!(base2, [0.5, 0.25, 0.75, 0.125]);
        let base3: Vec<f64> = (1..=4).map(|i| radical_inverse(i, 3)).collect();
        assert_eq!(
            base3,
            [1.0 / 3.0, 2.0 / 3.0, 1.0 / 9.0, 1.0 / 3.0 + 1.0 / 9.0]
        );
        assert_eq!(halton_point(0), (0.0, 0.0));
    }

    #[test]
    fn ten_maps_of_a_thousand_samples_estimate_pi_closely_every_time() {
        let (inside, total) = (0..10)
            .map(|index| run_pi_map(index, 1000))
            .fold((0, 0), |(i, t), (inside, total)| (i + inside, t + total));
        assert_eq!(total, 10_000);
        let estimate: f64 = format_estimate(inside, total).parse().unwrap();
        assert!(
            (estimate - std::f64::consts::PI).abs() < 0.01,
            "estimate {estimate}"
        );
        assert_eq!(
            (0..10).map(|index| run_pi_map(index, 1000).0).sum::<u64>(),
            inside,
            "deterministic"
        );
    }

    #[test]
    fn maps_cover_consecutive_windows_of_the_sequence() {
        let (first, _) = run_pi_map(0, 500);
        let (second, _) = run_pi_map(1, 500);
        assert_eq!(run_pi_map(0, 1000), (first + second, 1000));
    }

    #[test]
    fn the_estimate_prints_twenty_decimals_rounded_half_up() {
        assert_eq!(format_estimate(785, 1000), "3.14000000000000000000");
        assert_eq!(format_estimate(1, 3), "1.33333333333333333333");
        assert_eq!(format_estimate(2, 3), "2.66666666666666666667");
        assert_eq!(format_estimate(1, 1), "4.00000000000000000000");
        // 44/21 = 2.09523809523809523809|52...: the rounding carries through the last 9.
        assert_eq!(format_estimate(11, 21), "2.09523809523809523810");
        assert_eq!(format_estimate(0, 0), "NaN");
    }
}
