//! `robolog export LOG --video OUT [--topic T] [--fps F]`: one image topic
//! as an H.264 MP4 file. The frames are decoded here (see
//! [`robolog_sensors::images`]) and piped raw into the `ffmpeg` program
//! (`-f rawvideo -pix_fmt gray|gray16le|rgb24|... -s WxH -r FPS -i -
//! -c:v libx264 -pix_fmt yuv420p`), which writes the temporary file of an
//! [`AtomicFile`] beside OUT; it is renamed to OUT once ffmpeg ended
//! well. Odd sides are padded to even ones (`pad` filter, black), as
//! 4:2:0 chroma needs.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::thread::JoinHandle;

use robolog::Log;
use robolog::write::{AtomicFile, OutputPolicy};
use robolog_sensors::{Dtype, Image, ImageOptions, PixelOrder, Problem, Range, images};

use crate::context::Context;
use crate::progress::Progress;
use crate::sensors::{plural, storable};
use crate::{Failure, Outcome, output, write};

/// How to get ffmpeg, in the error of a missing one.
const INSTALL: &str = "--video pipes the frames into the ffmpeg program, which is not on \
     PATH: install it (`apt-get install ffmpeg` on Debian and Ubuntu, `brew install ffmpeg` on \
     macOS) and run again";

/// The `ffmpeg` program on `PATH`; the error says how to install it.
pub(crate) fn find_ffmpeg(dest: &Path) -> Result<PathBuf, Failure> {
    let name = format!("ffmpeg{}", std::env::consts::EXE_SUFFIX);
    std::env::var_os("PATH")
        .and_then(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join(&name))
                .find(|p| p.is_file())
        })
        .ok_or_else(|| Failure::new(dest, INSTALL))
}

/// The frames' size and ffmpeg pixel format: every frame of a video has
/// the first one's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Shape {
    width: u32,
    height: u32,
    pix_fmt: &'static str,
}

impl Shape {
    /// The shape of a frame as [`storable`] gives it (8- or 16-bit).
    fn of(image: &Image) -> Option<Shape> {
        use {Dtype::*, PixelOrder::*};
        let pix_fmt = match (image.order, image.dtype) {
            (Mono, U8) => "gray",
            (Mono, U16) => "gray16le",
            (Rgb, U8) => "rgb24",
            (Bgr, U8) => "bgr24",
            (Rgba, U8) => "rgba",
            (Bgra, U8) => "bgra",
            (Rgb, U16) => "rgb48le",
            (Bgr, U16) => "bgr48le",
            (Rgba, U16) => "rgba64le",
            (Bgra, U16) => "bgra64le",
            _ => return None,
        };
        Some(Shape {
            width: image.width,
            height: image.height,
            pix_fmt,
        })
    }
}

impl std::fmt::Display for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{} {}", self.width, self.height, self.pix_fmt)
    }
}

/// A running ffmpeg taking raw frames on its standard input.
struct Encoder {
    child: Child,
    /// Its standard input; `None` once closed.
    stdin: Option<ChildStdin>,
    /// The thread collecting its standard error.
    stderr: Option<JoinHandle<String>>,
    shape: Shape,
}

impl Encoder {
    /// Starts `ffmpeg` writing an MP4 of `shape` frames at `fps` to `out`.
    fn start(ffmpeg: &Path, shape: Shape, fps: f64, out: &Path) -> io::Result<Encoder> {
        let mut cmd = Command::new(ffmpeg);
        cmd.args(["-hide_banner", "-nostdin", "-loglevel", "error", "-y"])
            .args(["-f", "rawvideo", "-pix_fmt", shape.pix_fmt])
            .arg("-s")
            .arg(format!("{}x{}", shape.width, shape.height))
            .arg("-r")
            .arg(fps.to_string())
            .args(["-i", "-"]);
        if shape.width % 2 == 1 || shape.height % 2 == 1 {
            cmd.args(["-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2"]);
        }
        cmd.args(["-c:v", "libx264", "-pix_fmt", "yuv420p", "-f", "mp4"])
            .arg(out)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn()?;
        let stdin = child.stdin.take();
        let stderr = child.stderr.take().map(|mut e| {
            std::thread::spawn(move || {
                let mut text = String::new();
                let _ = e.read_to_string(&mut text);
                text
            })
        });
        Ok(Encoder {
            child,
            stdin,
            stderr,
            shape,
        })
    }

    /// Hands one frame's packed rows to ffmpeg.
    fn write(&mut self, data: &[u8]) -> io::Result<()> {
        match &mut self.stdin {
            Some(s) => s.write_all(data),
            None => Err(io::ErrorKind::BrokenPipe.into()),
        }
    }

    /// Closes ffmpeg's input and waits for it: `Err` with what it said
    /// when it did not end well.
    fn finish(&mut self) -> Result<(), String> {
        drop(self.stdin.take());
        let status = self.child.wait().map_err(|e| e.to_string())?;
        let said = self
            .stderr
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default();
        if status.success() {
            return Ok(());
        }
        let last: Vec<&str> = said.lines().rev().take(5).collect();
        let last: Vec<&str> = last.into_iter().rev().collect();
        Err(format!("ffmpeg ended with {status}: {}", last.join(" / ")))
    }
}

impl Drop for Encoder {
    /// An encoder left running (an error ended the export) is stopped.
    fn drop(&mut self) {
        if self.stdin.take().is_some() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Writes `topic`'s frames as a video at `dest` (see the [module](self)
/// docs); one line on stdout when written, a line on stderr for the
/// frames skipped.
#[allow(clippy::too_many_arguments)]
pub(crate) fn write(
    ctx: &Context,
    path: &Path,
    log: &Log<'_>,
    topic: &str,
    range: &Range,
    fps: f64,
    total: u64,
    dest: &Path,
    policy: &OutputPolicy,
) -> Result<Outcome, Failure> {
    if !(fps.is_finite() && fps > 0.0) {
        return Err(Failure::usage(
            dest,
            format!("--fps {fps}: expected a positive number of frames per second"),
        ));
    }
    let ffmpeg = find_ffmpeg(dest)?;
    let frames =
        images(log, topic, range, ImageOptions::default()).map_err(|e| Failure::new(path, e))?;
    write::report_leftovers(dest);
    let file = AtomicFile::create(dest, policy).map_err(|e| write::failed(dest, e))?;
    let bar = Progress::items(total, "frames");
    let mut encoder: Option<Encoder> = None;
    let (mut written, mut skipped) = (0u64, 0u64);
    let mut first: Option<Problem> = None;
    for frame in frames {
        bar.inc();
        let problem = |t, message| Problem {
            topic: topic.to_string(),
            log_time: Some(t),
            message,
        };
        let frame = frame.and_then(|s| {
            let t = s.log_time;
            let image = storable(s.value).map_err(|m| problem(t, m))?;
            let shape =
                Shape::of(&image).ok_or_else(|| problem(t, "no video pixel format".into()))?;
            match &encoder {
                Some(e) if e.shape != shape => Err(problem(
                    t,
                    format!("the frame is {shape}, the video's frames are {}", e.shape),
                )),
                _ => Ok((image, shape)),
            }
        });
        let (image, shape) = match frame {
            Ok(f) => f,
            Err(p) => {
                skipped += 1;
                first.get_or_insert(p);
                continue;
            }
        };
        let enc = match &mut encoder {
            Some(e) => e,
            None => encoder.insert(
                Encoder::start(&ffmpeg, shape, fps, file.temp_path()).map_err(|e| {
                    match e.kind() {
                        io::ErrorKind::NotFound => Failure::new(dest, INSTALL),
                        _ => Failure::new(dest, format!("could not start ffmpeg: {e}")),
                    }
                })?,
            ),
        };
        if let Err(e) = enc.write(&image.data) {
            let why = enc.finish().err().unwrap_or_else(|| e.to_string());
            return Err(Failure::new(dest, why));
        }
        written += 1;
    }
    bar.finish();
    let Some(mut enc) = encoder else {
        let why = first.map_or_else(|| "no message in the range".to_string(), |p| p.to_string());
        return Err(Failure::new(
            dest,
            format!("no frame of {topic} to write, so no video: {why}"),
        ));
    };
    enc.finish().map_err(|e| Failure::new(dest, e))?;
    file.commit().map_err(|e| Failure::new(dest, e))?;
    output::print_line(format_args!(
        "{topic}: wrote {} ({written} frame{}, {}x{}, {fps} fps)",
        dest.display(),
        plural(written),
        enc.shape.width,
        enc.shape.height,
    ));
    match first {
        Some(p) => {
            ctx.report(
                path,
                format_args!(
                    "{topic}: {skipped} message{} skipped; the first: {p}",
                    plural(skipped)
                ),
            );
            Ok(Outcome::Damaged)
        }
        None => Ok(Outcome::Clean),
    }
}
