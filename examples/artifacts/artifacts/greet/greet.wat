;; demo/greet: a WASM tool built from this text by npm run build (apps/door/scripts/build-artifacts.mjs), against the
;; WIT package apps/door/wit/murmur.wit. It streams a thought and the start of its reply through murmur:text/chunks,
;; asks the task's sender for a name through murmur:task/task, and answers "Hello, <name>!".
(module
  (import "murmur:task/task@0.1.0" "request-input" (func $ask (param i32 i32 i32)))
  (import "murmur:text/chunks@0.1.0" "text" (func $text (param i32 i32)))
  (import "murmur:text/chunks@0.1.0" "thinking" (func $thinking (param i32 i32)))
  (memory (export "memory") 1)
  (global $heap (mut i32) (i32.const 4096))
  (data (i32.const 16) "Whose name shall I greet?")
  (data (i32.const 64) "Hello, ")
  (data (i32.const 80) "!")
  (data (i32.const 96) "looking for a name to greet")

  ;; A bump allocator: the host writes the reply here; nothing is ever freed (one call, one instance).
  (func $alloc (export "cabi_realloc") (param $old i32) (param $oldsize i32) (param $align i32) (param $size i32) (result i32)
    (local $at i32)
    (local.set $at (i32.and
      (i32.add (global.get $heap) (i32.sub (local.get $align) (i32.const 1)))
      (i32.sub (i32.const 0) (local.get $align))))
    (global.set $heap (i32.add (local.get $at) (local.get $size)))
    (if (i32.gt_u (global.get $heap) (i32.mul (memory.size) (i32.const 65536)))
      (then
        (if (i32.eq (memory.grow (i32.add (i32.div_u (i32.sub (global.get $heap) (i32.mul (memory.size) (i32.const 65536))) (i32.const 65536)) (i32.const 1))) (i32.const -1))
          (then unreachable))))
    (if (local.get $old) (then (memory.copy (local.get $at) (local.get $old) (local.get $oldsize))))
    (local.get $at))

  ;; run(input) -> result<string, string>: the result at 256 (tag, pointer, length).
  (func (export "murmur:tool/run@0.1.0#run") (param $input i32) (param $length i32) (result i32)
    (local $name i32) (local $namelen i32) (local $out i32) (local $outlen i32)
    (call $thinking (i32.const 96) (i32.const 27))
    (call $text (i32.const 64) (i32.const 7))
    (call $ask (i32.const 16) (i32.const 25) (i32.const 512))
    (if (i32.load8_u (i32.const 512))
      (then
        ;; No reply came: the call fails with the host's reason.
        (i32.store8 (i32.const 256) (i32.const 1))
        (i32.store (i32.const 260) (i32.load (i32.const 516)))
        (i32.store (i32.const 264) (i32.load (i32.const 520)))
        (return (i32.const 256))))
    (local.set $name (i32.load (i32.const 516)))
    (local.set $namelen (i32.load (i32.const 520)))
    (call $text (local.get $name) (local.get $namelen))
    (call $text (i32.const 80) (i32.const 1))
    (local.set $outlen (i32.add (local.get $namelen) (i32.const 8)))
    (local.set $out (call $alloc (i32.const 0) (i32.const 0) (i32.const 1) (local.get $outlen)))
    (memory.copy (local.get $out) (i32.const 64) (i32.const 7))
    (memory.copy (i32.add (local.get $out) (i32.const 7)) (local.get $name) (local.get $namelen))
    (i32.store8 (i32.add (local.get $out) (i32.add (local.get $namelen) (i32.const 7))) (i32.const 33))
    (i32.store8 (i32.const 256) (i32.const 0))
    (i32.store (i32.const 260) (local.get $out))
    (i32.store (i32.const 264) (local.get $outlen))
    (i32.const 256))
)
