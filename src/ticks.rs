//! Time as whole ticks of `10^-decimals` time units, the one representation
//! of the trace's time stamps and of the specification's time bounds: how
//! many decimals can be read, and a number of ticks written back.

/// The largest number of decimal digits a time stamp may be read with
/// (nanoseconds when the unit is the second).
pub const MAX_TIME_DECIMALS: u8 = 9;

/// `ticks` of `10^-decimals` time units, written as a decimal number with
/// exactly `decimals` digits after the point (none for 0: `12`, `0.50`).
pub fn format_time(ticks: u64, decimals: u8) -> String {
    if decimals == 0 {
        return ticks.to_string();
    }
    let scale = 10u64.pow(u32::from(decimals));
    format!(
        "{}.{:0width$}",
        ticks / scale,
        ticks % scale,
        width = usize::from(decimals)
    )
}
