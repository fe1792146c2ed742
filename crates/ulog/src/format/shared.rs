//! What the logs read by one process share of their definitions.
//!
//! The logs of a fleet come from a handful of firmware builds, each
//! defining the same formats in every log it writes. Each distinct
//! definition text is therefore checked once and stored once for the
//! process ([`checked`], [`intern`]), and a log whose definitions are, in
//! order, the same texts as another's finds the layouts and schemas that
//! log made ([`set`]).
//!
//! Only results that depend on nothing but the definitions are shared:
//! checked texts, and layouts that resolved without an error (an error
//! names the file offset of the message that asked, and is worked out
//! again by each log). Both tables are bounded, and so are the definitions
//! of a set; past the bounds, logs check and resolve their definitions on
//! their own, as when nothing is shared.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use logcore::Schema;

use super::{Layout, NameMap};

/// Bytes of distinct definition texts kept at most (a PX4 build defines
/// about 45 KiB of formats).
const MAX_TEXT_BYTES: usize = 16 << 20;

/// Distinct sets of definitions kept at most.
const MAX_SETS: usize = 64;

/// Text bytes of a set of definitions shared at most (a PX4 build's are
/// about 45 KiB). What a set holds is some times its texts, and it stays
/// as long as the process: with [`MAX_SETS`], this bounds the memory the
/// sets take whatever files are read.
const MAX_SET_TEXT_BYTES: usize = 256 << 10;

/// Checked definition texts and their numbers. The default hasher: the
/// texts come from files, which could be made to collide on a simpler hash.
#[derive(Default)]
struct Texts {
    ids: HashMap<Arc<str>, u32>,
    bytes: usize,
}

fn texts() -> &'static Mutex<Texts> {
    static TEXTS: OnceLock<Mutex<Texts>> = OnceLock::new();
    TEXTS.get_or_init(Mutex::default)
}

/// The number and stored copy of `text`, when a log of this process
/// checked it before: it is a valid definition.
pub(super) fn checked(text: &str) -> Option<(u32, Arc<str>)> {
    let t = texts().lock().unwrap_or_else(PoisonError::into_inner);
    t.ids.get_key_value(text).map(|(k, &id)| (id, k.clone()))
}

/// Stores `text`, which [`super::Formats`] found valid, and numbers it;
/// `None` when the table is full.
pub(super) fn intern(text: &str) -> Option<(u32, Arc<str>)> {
    let mut t = texts().lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((k, &id)) = t.ids.get_key_value(text) {
        return Some((id, k.clone()));
    }
    let id = u32::try_from(t.ids.len()).ok()?;
    if t.bytes + text.len() > MAX_TEXT_BYTES {
        return None;
    }
    let stored: Arc<str> = Arc::from(text);
    t.bytes += text.len();
    t.ids.insert(stored.clone(), id);
    Some((id, stored))
}

/// Positions of a log's `F` messages that [`recent`] remembers at most.
const MAX_RECENT: usize = 4096;

/// Texts remembered at each position: a fleet's logs come from a few
/// firmware builds, whose logs a thread reads in any order.
const WAYS: usize = 4;

/// The texts remembered at one position, the latest first.
type Ways = [Option<(u32, Arc<str>)>; WAYS];

thread_local! {
    /// The texts (and numbers) that the logs read on this thread defined,
    /// by position among their `F` messages.
    static RECENT: std::cell::RefCell<Vec<Ways>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The stored text equal to `bytes`, when a log read before on this thread
/// defined it at position `at` among its `F` messages: a comparison or
/// few, with no hashing, locking or UTF-8 check (the logs of one firmware
/// build define the same texts in the same order). It was checked then.
pub(super) fn recent(at: usize, bytes: &[u8]) -> Option<(u32, Arc<str>)> {
    RECENT.with_borrow(|r| {
        r.get(at)?
            .iter()
            .flatten()
            .find(|(_, t)| t.as_bytes() == bytes)
            .map(|(id, t)| (*id, t.clone()))
    })
}

/// Remembers that the text numbered `id` was defined at position `at` (see
/// [`recent`]), in front of the [`WAYS`] texts remembered there; only the
/// first [`MAX_RECENT`] positions are kept.
pub(super) fn remember(at: usize, id: u32, text: &Arc<str>) {
    RECENT.with_borrow_mut(|r| {
        if at == r.len() && at < MAX_RECENT {
            r.push(Default::default());
        }
        if let Some(ways) = r.get_mut(at) {
            ways.rotate_right(1);
            ways[0] = Some((id, text.clone()));
        }
    });
}

/// What the logs defining one sequence of texts (under one nesting limit)
/// have resolved.
#[derive(Debug, Default)]
pub(super) struct Set {
    layouts: Mutex<NameMap<Arc<Layout>>>,
    schemas: Mutex<NameMap<Arc<Schema>>>,
}

impl Set {
    /// The layout of `name`, when a log resolved it without an error.
    pub(super) fn layout(&self, name: &str) -> Option<Arc<Layout>> {
        get(&self.layouts, name)
    }

    /// Records the layout a log resolved for `name`.
    pub(super) fn put_layout(&self, name: &str, layout: &Arc<Layout>) {
        put(&self.layouts, name, layout);
    }

    /// The schema of `name` (its definition text and those of the formats
    /// it nests), when a log made it.
    pub(super) fn schema(&self, name: &str) -> Option<Arc<Schema>> {
        get(&self.schemas, name)
    }

    /// Records the schema a log made for `name`.
    pub(super) fn put_schema(&self, name: &str, schema: &Arc<Schema>) {
        put(&self.schemas, name, schema);
    }
}

fn get<T>(map: &Mutex<NameMap<Arc<T>>>, name: &str) -> Option<Arc<T>> {
    let m = map.lock().unwrap_or_else(PoisonError::into_inner);
    m.get(name).cloned()
}

/// Keeps the first value recorded for `name` (every log makes the same).
fn put<T>(map: &Mutex<NameMap<Arc<T>>>, name: &str, value: &Arc<T>) {
    let mut m = map.lock().unwrap_or_else(PoisonError::into_inner);
    m.entry(name.to_string()).or_insert_with(|| value.clone());
}

type Sets = HashMap<(Box<[u32]>, usize), Arc<Set>>;

/// The shared results of the logs whose definitions are the texts `ids`
/// (`text_bytes` long in all), in this order, resolved at most
/// `max_nesting` deep; `None` when the texts are too long to share, or the
/// table is full and this set is not in it.
pub(super) fn set(ids: &[u32], text_bytes: usize, max_nesting: usize) -> Option<Arc<Set>> {
    if text_bytes > MAX_SET_TEXT_BYTES {
        return None;
    }
    static SETS: OnceLock<Mutex<Sets>> = OnceLock::new();
    let mut sets = SETS
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    let key = (Box::<[u32]>::from(ids), max_nesting);
    if let Some(s) = sets.get(&key) {
        return Some(s.clone());
    }
    if sets.len() >= MAX_SETS {
        return None;
    }
    let s = Arc::new(Set::default());
    sets.insert(key, s.clone());
    Some(s)
}
