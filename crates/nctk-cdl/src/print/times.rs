//! `-t` / `-i`: CF time values as date-time strings, computed the way
//! ncdump's copy of the CDMS `cdtime` routines computes them (mixed
//! Julian/Gregorian default calendar, month units that snap to the first
//! of the month, 30-day months in the 366-day calendar, ...).

use std::io::Write;

use nctk_model::{DataType, Schema, Values, VarId};

use super::escape::c_str;
use super::header::push_special;
use super::Printer;

// Calendar flags (cdCalenType).
const CD_STANDARD_CAL: u32 = 0x11;
const CD_HAS_LEAP: u32 = 0x100;
const CD_365: u32 = 0x1000;
const CD_366: u32 = 0x2000;
const CD_JULIAN_CAL: u32 = 0x10000;
const CD_MIXED_CAL: u32 = 0x20000;
const CAL_STANDARD: u32 = CD_STANDARD_CAL | CD_HAS_LEAP | CD_365;
const CAL_JULIAN: u32 = CD_STANDARD_CAL | CD_HAS_LEAP | CD_365 | CD_JULIAN_CAL;
const CAL_NOLEAP: u32 = CD_STANDARD_CAL | CD_365;
const CAL_360: u32 = CD_STANDARD_CAL;
const CAL_366: u32 = CD_STANDARD_CAL | CD_366;
const CAL_CLIM: u32 = CD_365;
const CAL_MIXED: u32 = CD_STANDARD_CAL | CD_HAS_LEAP | CD_365 | CD_MIXED_CAL;

// Old time types (CdTimeType).
const T_CHRON_CAL: u32 = 0x1;
const T_BASE1970: u32 = 0x10;
const T_HAS_LEAP: u32 = 0x100;
const T_365: u32 = 0x1000;
const T_366: u32 = 0x2000;
const T_JULIAN: u32 = 0x10000;

/// Relative time units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    Second,
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Season,
    Year,
}

/// A component time (cdCompTime).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Comp {
    year: i64,
    month: i64,
    day: i64,
    hour: f64,
}

/// A human time (CdTime).
#[derive(Debug, Clone, Copy)]
struct Human {
    year: i64,
    month: i64,
    day: i64,
    hour: f64,
    base_year: i64,
    ttype: u32,
}

/// How to turn a time variable's numbers into dates.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TimeInfo {
    calendar: u32,
    unit: Unit,
    base: Comp,
}

/// The whitespace-delimited words of `s` (scanf's `%s`).
fn words(s: &str) -> impl Iterator<Item = &str> {
    s.split(|c: char| c.is_ascii_whitespace())
        .filter(|w| !w.is_empty())
}

/// Parses `<unit> since <rest>` as ncdump's `sscanf` calls do:
/// the unit word, then `since` (blanks optional), then at least one more
/// character. Returns the unit word and the text after `since`.
fn split_since(units: &str) -> Option<(&str, &str)> {
    let t = units.trim_start_matches(|c: char| c.is_ascii_whitespace());
    let end = t.find(|c: char| c.is_ascii_whitespace()).unwrap_or(t.len());
    let (word, rest) = t.split_at(end);
    if word.is_empty() {
        return None;
    }
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_whitespace());
    let rest = rest.strip_prefix("since")?;
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_whitespace());
    if rest.is_empty() {
        return None;
    }
    Some((word, rest))
}

fn parse_unit(w: &str) -> Option<Unit> {
    let w = w.to_ascii_lowercase();
    let u = if w.starts_with("sec") || w == "s" {
        Unit::Second
    } else if w.starts_with("min") || w == "mn" {
        Unit::Minute
    } else if w.starts_with("hour") || w == "hr" {
        Unit::Hour
    } else if w.starts_with("day") || w == "dy" {
        Unit::Day
    } else if w.starts_with("week") || w == "wk" {
        Unit::Week
    } else if w.starts_with("month") || w == "mo" {
        Unit::Month
    } else if w.starts_with("season") {
        Unit::Season
    } else if w.starts_with("year") || w == "yr" {
        Unit::Year
    } else {
        return None;
    };
    Some(u)
}

/// The calendar named by a `calendar` attribute (ncdump's `calendar_type`:
/// the value may be any prefix of a known name).
fn calendar_type(v: Option<&Values>) -> u32 {
    const MAP: &[(&str, u32)] = &[
        ("gregorian", CAL_MIXED),
        ("standard", CAL_MIXED),
        ("proleptic_gregorian", CAL_STANDARD),
        ("noleap", CAL_NOLEAP),
        ("no_leap", CAL_NOLEAP),
        ("365_day", CAL_NOLEAP),
        ("allleap", CAL_366),
        ("all_leap", CAL_366),
        ("366_day", CAL_366),
        ("360_day", CAL_360),
        ("julian", CAL_JULIAN),
        ("none", CAL_CLIM),
    ];
    let Some(Values::Char(t)) = v else {
        return CAL_MIXED;
    };
    if t.is_empty() {
        return CAL_MIXED;
    }
    let s = c_str(t);
    let n = t.len();
    for &(name, cal) in MAP {
        if strncmp_eq(s, name.as_bytes(), n) {
            return cal;
        }
    }
    CAL_MIXED
}

/// C's `strncmp(a, b, n) == 0` on NUL-free byte strings.
fn strncmp_eq(a: &[u8], b: &[u8], n: usize) -> bool {
    for i in 0..n {
        let x = a.get(i).copied().unwrap_or(0);
        let y = b.get(i).copied().unwrap_or(0);
        if x != y {
            return false;
        }
        if x == 0 {
            return true;
        }
    }
    true
}

/// A C-`sscanf`-like reader of numbers.
struct Scan<'a> {
    s: &'a [u8],
    i: usize,
}

impl Scan<'_> {
    fn skip_ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }
    fn lit(&mut self, c: u8) -> bool {
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn int(&mut self) -> Option<i64> {
        self.skip_ws();
        let start = self.i;
        if matches!(self.s.get(self.i), Some(b'+' | b'-')) {
            self.i += 1;
        }
        let digits = self.i;
        while self.i < self.s.len() && self.s[self.i].is_ascii_digit() {
            self.i += 1;
        }
        if self.i == digits {
            self.i = start;
            return None;
        }
        std::str::from_utf8(&self.s[start..self.i])
            .ok()?
            .parse::<i64>()
            .ok()
    }
    fn float(&mut self) -> Option<f64> {
        self.skip_ws();
        let start = self.i;
        if matches!(self.s.get(self.i), Some(b'+' | b'-')) {
            self.i += 1;
        }
        let mut seen = false;
        while self.i < self.s.len() && self.s[self.i].is_ascii_digit() {
            self.i += 1;
            seen = true;
        }
        if self.s.get(self.i) == Some(&b'.') {
            self.i += 1;
            while self.i < self.s.len() && self.s[self.i].is_ascii_digit() {
                self.i += 1;
                seen = true;
            }
        }
        if !seen {
            self.i = start;
            return None;
        }
        if matches!(self.s.get(self.i), Some(b'e' | b'E')) {
            let save = self.i;
            self.i += 1;
            if matches!(self.s.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            let d = self.i;
            while self.i < self.s.len() && self.s[self.i].is_ascii_digit() {
                self.i += 1;
            }
            if self.i == d {
                self.i = save;
            }
        }
        std::str::from_utf8(&self.s[start..self.i])
            .ok()?
            .parse()
            .ok()
    }
}

/// ncdump's `cdChar2Comp`: `Y-M-D h:m:s` (or `M-D h:m:s` for climatology).
fn char_to_comp(cal: u32, s: &str) -> Comp {
    let mut c = Comp {
        year: 0,
        month: 1,
        day: 1,
        hour: 0.0,
    };
    let mut sc = Scan {
        s: s.as_bytes(),
        i: 0,
    };
    if cal & CD_STANDARD_CAL != 0 {
        let Some(y) = sc.int() else { return c };
        c.year = y;
        if !sc.lit(b'-') {
            return c;
        }
        let Some(m) = sc.int() else { return c };
        c.month = i64::from(m as i16);
        if !sc.lit(b'-') {
            return c;
        }
        let Some(d) = sc.int() else { return c };
        c.day = i64::from(d as i16);
    } else {
        let Some(m) = sc.int() else { return c };
        c.month = i64::from(m as i16);
        if !sc.lit(b'-') {
            return c;
        }
        let Some(d) = sc.int() else { return c };
        c.day = i64::from(d as i16);
    }
    sc.skip_ws();
    let Some(h) = sc.int() else { return c };
    if !(0..=23).contains(&h) {
        return c;
    }
    c.hour = h as f64;
    if !sc.lit(b':') {
        return c;
    }
    let Some(mi) = sc.int() else { return c };
    if !(0..=59).contains(&mi) {
        return c;
    }
    c.hour += mi as f64 / 60.;
    if !sc.lit(b':') {
        return c;
    }
    let Some(sec) = sc.float() else { return c };
    if !(0.0..=60.0).contains(&sec) {
        return c;
    }
    c.hour += sec / 3600.;
    c
}

fn is_leap(year: i64, t: u32) -> bool {
    (t & T_366 != 0)
        || ((t & T_HAS_LEAP != 0)
            && (year % 4 == 0 && ((t & T_JULIAN != 0) || (year % 100 != 0 || year % 400 == 0))))
}

const MON_DAYS: [i64; 12] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const DAYS_SUM: [i64; 12] = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];

fn month_day(doy: i64, h: &mut Human) {
    if doy < 1 {
        h.month = 0;
        h.day = 0;
        return;
    }
    let year = if h.ttype & T_CHRON_CAL == 0 {
        0
    } else if h.ttype & T_BASE1970 == 0 {
        h.base_year + h.year
    } else {
        h.year
    };
    let mut md = MON_DAYS;
    md[1] = if is_leap(year, h.ttype) { 29 } else { 28 };
    let mut idoy = doy;
    h.month = 0;
    for _ in 0..12 {
        h.month += 1;
        h.day = idoy;
        idoy -= if h.ttype & (T_365 | T_366) != 0 {
            md[(h.month - 1) as usize]
        } else {
            30
        };
        if idoy <= 0 {
            return;
        }
    }
}

fn day_of_year(h: &Human) -> i64 {
    let mut month = h.month;
    if !(1..=12).contains(&month) {
        month = 1;
    }
    let year = if h.ttype & T_CHRON_CAL == 0 {
        0
    } else if h.ttype & T_BASE1970 == 0 {
        h.base_year + h.year
    } else {
        h.year
    };
    let leap_add = i64::from(is_leap(year, h.ttype) && month > 2);
    if h.ttype & (T_365 | T_366) != 0 {
        DAYS_SUM[(month - 1) as usize] + h.day + leap_add
    } else {
        30 * (month - 1) + h.day + leap_add
    }
}

fn year_lengths(t: u32) -> (i64, i64) {
    if t & T_366 != 0 {
        (366, 366)
    } else if t & T_365 != 0 {
        (366, 365)
    } else {
        (360, 360)
    }
}

/// Human time to hours since 1970 (Cdh2e).
fn h2e(h: &Human) -> f64 {
    let doy = day_of_year(h);
    let mut base_year = if h.ttype & T_BASE1970 != 0 {
        1970
    } else {
        h.base_year
    };
    let mut year = if h.ttype & T_BASE1970 != 0 {
        h.year
    } else {
        h.year + h.base_year
    };
    if h.ttype & T_CHRON_CAL == 0 {
        base_year = 0;
        year = 0;
    }
    let (leap_len, len) = year_lengths(h.ttype);
    let mut day_cnt = 0i64;
    if year > base_year {
        for y in base_year..year {
            day_cnt += if is_leap(y, h.ttype) { leap_len } else { len };
        }
    } else if year < base_year {
        for y in year..base_year {
            day_cnt -= if is_leap(y, h.ttype) { leap_len } else { len };
        }
    }
    (day_cnt + doy - 1) as f64 * 24. + h.hour
}

/// Hours since 1970 to human time (Cde2h).
fn e2h(etime: f64, ttype: u32, base_year: i64) -> Human {
    let mut doy = (etime / 24.).floor() as i64 + 1;
    let mut hour = etime - (doy - 1) as f64 * 24.;
    if hour >= 24. {
        doy += 1;
        hour -= 24.;
    }
    let mut h = Human {
        year: 0,
        month: 0,
        day: 0,
        hour,
        base_year: if ttype & T_BASE1970 != 0 {
            1970
        } else {
            base_year
        },
        ttype,
    };
    if ttype & T_CHRON_CAL == 0 {
        h.base_year = 0;
    }
    let (leap_len, len) = year_lengths(ttype);
    let mut y = h.base_year;
    if doy > 0 {
        loop {
            let cnt = if is_leap(y, ttype) { leap_len } else { len };
            if doy <= cnt {
                break;
            }
            doy -= cnt;
            y += 1;
        }
    } else {
        y = h.base_year - 1;
        loop {
            let cnt = if is_leap(y, ttype) { leap_len } else { len };
            doy += cnt;
            if doy > 0 {
                break;
            }
            y -= 1;
        }
    }
    h.year = if ttype & T_BASE1970 != 0 {
        y
    } else {
        y - h.base_year
    };
    if ttype & T_CHRON_CAL == 0 {
        h.year = 0;
    }
    month_day(doy, &mut h);
    h
}

/// The old time type of a calendar (cdToOldTimetype).
fn old_type(cal: u32) -> u32 {
    match cal {
        CAL_JULIAN => T_CHRON_CAL | T_BASE1970 | T_HAS_LEAP | T_365 | T_JULIAN,
        CAL_NOLEAP => T_CHRON_CAL | T_BASE1970 | T_365,
        CAL_360 => T_CHRON_CAL | T_BASE1970,
        CAL_366 => T_CHRON_CAL | T_BASE1970 | T_366,
        CAL_CLIM => T_365,
        // cdStandard (and anything else, which ncdump reports as an error)
        _ => T_CHRON_CAL | T_BASE1970 | T_HAS_LEAP | T_365,
    }
}

fn human(c: Comp, ttype: u32) -> Human {
    Human {
        year: c.year,
        month: c.month,
        day: c.day,
        hour: c.hour,
        base_year: 1970,
        ttype,
    }
}

/// Hours of `c` relative to 1979-01-01 in `cal` (cdComp2Rel with "hours").
fn comp_to_hours(cal: u32, c: Comp) -> f64 {
    let t = old_type(cal);
    let base = Comp {
        year: 1979,
        month: 1,
        day: 1,
        hour: 0.0,
    };
    h2e(&human(c, t)) - h2e(&human(base, t))
}

/// cdRel2Comp(cal, "hours", reltime).
fn hours_to_comp(cal: u32, reltime: f64) -> Comp {
    let t = old_type(cal);
    let base = Comp {
        year: 1979,
        month: 1,
        day: 1,
        hour: 0.0,
    };
    let h = e2h(h2e(&human(base, t)) + reltime, t, 1970);
    Comp {
        year: h.year,
        month: h.month,
        day: h.day,
        hour: h.hour,
    }
}

fn comp_add(c: Comp, value: f64, cal: u32) -> Comp {
    hours_to_comp(cal, comp_to_hours(cal, c) + value)
}

fn comp_cmp(a: Comp, b: Comp) -> std::cmp::Ordering {
    a.year
        .cmp(&b.year)
        .then(a.month.cmp(&b.month))
        .then(a.day.cmp(&b.day))
        .then(
            a.hour
                .partial_cmp(&b.hour)
                .unwrap_or(std::cmp::Ordering::Equal),
        )
}

/// Adds hours in the mixed Julian/Gregorian calendar (cdCompAddMixed).
fn comp_add_mixed(ct: Comp, value: f64) -> Comp {
    const ZA: Comp = Comp {
        year: 1582,
        month: 10,
        day: 5,
        hour: 0.0,
    };
    const ZB: Comp = Comp {
        year: 1582,
        month: 10,
        day: 15,
        hour: 0.0,
    };
    if comp_cmp(ct, ZB).is_lt() {
        let xj = comp_to_hours(CAL_JULIAN, ZA) - comp_to_hours(CAL_JULIAN, ct);
        if value <= xj {
            comp_add(ct, value, CAL_JULIAN)
        } else {
            comp_add(ZB, value - xj, CAL_STANDARD)
        }
    } else {
        let xg = comp_to_hours(CAL_STANDARD, ZB) - comp_to_hours(CAL_STANDARD, ct);
        if value > xg {
            comp_add(ct, value, CAL_STANDARD)
        } else {
            comp_add(ZA, value - xg, CAL_JULIAN)
        }
    }
}

impl TimeInfo {
    /// Parses a `units` attribute and calendar (ncdump's `get_timeinfo`);
    /// `None` when the variable does not qualify.
    fn parse(units: &Values, calendar: Option<&Values>) -> Option<TimeInfo> {
        let Values::Char(t) = units else {
            return None;
        };
        let units = String::from_utf8_lossy(c_str(t)).into_owned();
        let (word, rest) = split_since(&units)?;
        let unit = parse_unit(word)?;
        let calendar = calendar_type(calendar);
        if unit == Unit::Year && calendar & CD_STANDARD_CAL == 0 {
            return None;
        }
        let mut w = words(rest);
        let mut b1 = w.next()?.to_string();
        let mut b2 = w.next().map(str::to_string);
        if b1.contains('T') {
            // ISO 8601 "T" separator: sscanf("%[^T]T%s") on what follows "since".
            let (date, time) = rest.split_once('T')?;
            b1 = words(date).next().unwrap_or("").to_string();
            b2 = words(time).next().map(str::to_string);
            if date.is_empty() {
                return None;
            }
        }
        let basetime = match b2 {
            Some(b2) => format!("{b1} {b2}"),
            None => b1,
        };
        let base = char_to_comp(calendar, &basetime);
        Some(TimeInfo {
            calendar,
            unit,
            base,
        })
    }

    /// The time facts of `v` (units and calendar of the variable itself).
    pub(crate) fn for_var(schema: &Schema, v: VarId) -> Option<TimeInfo> {
        let var = schema.var(v);
        let units = var.attribute("units")?;
        if units.value.dtype() != DataType::Char {
            return None;
        }
        TimeInfo::parse(&units.value, var.attribute("calendar").map(|a| &a.value))
    }

    /// cdRel2Comp: the component time `reltime` units after the base.
    fn rel_to_comp(&self, reltime: f64) -> Comp {
        let mut cal = self.calendar;
        let u = self.unit;
        if cal == CAL_MIXED {
            match u {
                Unit::Month | Unit::Season | Unit::Year => cal = CAL_STANDARD,
                _ => return comp_add_mixed(self.base, to_hours(reltime, u)),
            }
        }
        let t = old_type(cal);
        let base_etm = h2e(&human(self.base, t));
        let h = match u {
            Unit::Month | Unit::Season | Unit::Year => {
                let eps = if reltime < 0.0 { -1e-10 } else { 1e-10 };
                let months = match u {
                    Unit::Month => reltime + eps,
                    Unit::Season => 3.0 * reltime + eps,
                    _ => 12.0 * reltime + eps,
                } as i64;
                if reltime == 0.0 {
                    human(self.base, t)
                } else {
                    let b = e2h(base_etm, t, 1970);
                    let del = months + b.month - 1;
                    let del_years = if del >= 0 {
                        del / 12
                    } else {
                        (del + 1) / 12 - 1
                    };
                    let e = Human {
                        year: b.year + del_years,
                        month: del - 12 * del_years + 1,
                        day: 1,
                        hour: 0.0,
                        base_year: if t & T_CHRON_CAL == 0 { 0 } else { 1970 },
                        ttype: t,
                    };
                    e2h(h2e(&e), t, 1970)
                }
            }
            _ => e2h(base_etm + to_hours(reltime, u), t, 1970),
        };
        Comp {
            year: h.year,
            month: h.month,
            day: h.day,
            hour: h.hour,
        }
    }

    /// Appends the date-time string of `x` (cdRel2Iso).
    pub(crate) fn push_iso(&self, out: &mut Vec<u8>, x: f64, sep: u8) {
        let c = self.rel_to_comp(x);
        if !(1..=12).contains(&c.month)
            || !(1..=31).contains(&c.day)
            || !(0.0..=24.0).contains(&c.hour)
        {
            return;
        }
        const EPS_SEC: f64 = 0.5e-6;
        const EPS_MIN: f64 = EPS_SEC / 60.;
        const EPS_HR: f64 = EPS_MIN / 60.;
        let ihr = (c.hour + EPS_HR) as i64;
        let dtmp = 60.0 * (c.hour - ihr as f64);
        let imin = (dtmp + EPS_MIN) as i64;
        let sec = 60.0 * (dtmp - imin as f64);
        let isec = (sec + EPS_SEC) as i64;
        let nskip = if sec - (isec as f64) < EPS_SEC {
            if isec == 0 {
                if imin == 0 {
                    if ihr == 0 {
                        4
                    } else {
                        3
                    }
                } else {
                    2
                }
            } else {
                1
            }
        } else {
            0
        };
        let mut s = if self.calendar & CD_STANDARD_CAL != 0 {
            format!("{}-{:02}-{:02}", pad4(c.year), c.month, c.day)
        } else {
            format!("{:02}-{:02}", c.month, c.day)
        };
        let sep = char::from(sep);
        match nskip {
            0 => s.push_str(&format!("{sep}{ihr:02}:{imin:02}:{sec:.6}")),
            1 => s.push_str(&format!("{sep}{ihr:02}:{imin:02}:{isec:02}")),
            2 => s.push_str(&format!("{sep}{ihr:02}:{imin:02}")),
            3 => s.push_str(&format!("{sep}{ihr:02}")),
            _ => {}
        }
        out.extend_from_slice(s.as_bytes());
    }
}

/// C's `%4.4ld`.
fn pad4(y: i64) -> String {
    if y < 0 {
        format!("-{:04}", -y)
    } else {
        format!("{y:04}")
    }
}

fn to_hours(v: f64, u: Unit) -> f64 {
    match u {
        Unit::Second => v / 3600.0,
        Unit::Minute => v / 60.0,
        Unit::Hour => v,
        Unit::Day => 24.0 * v,
        Unit::Week => 168.0 * v,
        _ => 0.0,
    }
}

/// Values of a numeric attribute as doubles.
fn att_as_f64(v: &Values) -> Vec<f64> {
    match v {
        Values::Byte(v) => v.iter().map(|&x| f64::from(x)).collect(),
        Values::Short(v) => v.iter().map(|&x| f64::from(x)).collect(),
        Values::Int(v) => v.iter().map(|&x| f64::from(x)).collect(),
        Values::Float(v) => v.iter().map(|&x| f64::from(x)).collect(),
        Values::Double(v) => v.clone(),
        Values::UByte(v) => v.iter().map(|&x| f64::from(x)).collect(),
        Values::UShort(v) => v.iter().map(|&x| f64::from(x)).collect(),
        Values::UInt(v) => v.iter().map(|&x| f64::from(x)).collect(),
        Values::Int64(v) => v.iter().map(|&x| x as f64).collect(),
        Values::UInt64(v) => v.iter().map(|&x| x as f64).collect(),
        // Text and any other type without numbers: no times.
        _ => vec![],
    }
}

impl<W: Write> Printer<'_, W> {
    /// `-t`: the values of a numeric attribute of a time variable as a
    /// trailing CDL comment (ncdump's `print_att_times` and `lput2`).
    pub(crate) fn print_att_times(&mut self, v: VarId, values: &Values) {
        if matches!(values.dtype(), DataType::Char | DataType::String) {
            return;
        }
        let Some(t) = TimeInfo::for_var(self.schema, v) else {
            return;
        };
        let sep = if self.opts.times == super::TimeStrings::IsoT {
            b'T'
        } else {
            b' '
        };
        let xs = att_as_f64(values);
        let wrap = xs.len() > 2;
        let mut s = Vec::new();
        for (i, &x) in xs.iter().enumerate() {
            s.clear();
            if x.is_finite() {
                s.push(b'"');
                t.push_iso(&mut s, x, sep);
                s.push(b'"');
            } else {
                push_special(&mut s, x, b"");
            }
            if i + 1 < xs.len() {
                s.push(b',');
            }
            let first = i == 0;
            self.linep2 += 1 + s.len();
            let newline = wrap && (first || self.linep2 > self.max_line_len + 2);
            if newline {
                self.buf.push(b'\n');
                self.indent_out();
                self.buf.extend_from_slice(b"\t\t  ");
                self.linep2 = 16 + 2 + s.len();
            } else {
                self.buf.push(b' ');
            }
            if first || newline {
                self.buf.extend_from_slice(b"// ");
                self.linep2 += 3;
            }
            self.buf.extend_from_slice(&s);
        }
    }

    /// Registers the variable named by a `bounds` attribute as a bounds
    /// variable of `v` (its data then print as times too).
    pub(crate) fn note_bounds(&mut self, v: VarId, values: &Values) {
        if let Values::Char(t) = values {
            let name = String::from_utf8_lossy(c_str(t)).into_owned();
            self.bounds.push((name, v));
        }
    }

    /// The time facts for printing the data of `v`: its own, or those of
    /// the variable whose `bounds` attribute names it.
    pub(crate) fn time_info(&self, v: VarId) -> Option<TimeInfo> {
        let name = &self.schema.var(v).name;
        let src = self
            .bounds
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map_or(v, |&(_, parent)| parent);
        TimeInfo::for_var(self.schema, src)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iso(units: &str, cal: Option<&str>, x: f64) -> String {
        let t = TimeInfo::parse(&Values::text(units), cal.map(Values::text).as_ref()).unwrap();
        let mut o = vec![];
        t.push_iso(&mut o, x, b' ');
        String::from_utf8(o).unwrap()
    }

    #[test]
    fn dates() {
        assert_eq!(iso("days since 2000-01-01", None, 59.5), "2000-02-29 12");
        assert_eq!(iso("hours since 1990-1-1", None, 8760.0), "1991-01-01");
        assert_eq!(
            iso("days since 0001-01-01", Some("noleap"), 365.0),
            "0002-01-01"
        );
        // netCDF-C quirks, checked against its ncdump.
        assert_eq!(iso("days since 1582-10-04", None, 1.0), "1582-10-05");
        assert_eq!(iso("days since 1582-10-04", None, 2.0), "1582-10-16");
        assert!(TimeInfo::parse(&Values::text("m"), None).is_none());
        assert!(TimeInfo::parse(&Values::text("days since"), None).is_none());
    }
}
