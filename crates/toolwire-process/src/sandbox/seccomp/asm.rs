//! A small assembler for classic BPF as seccomp reads it: loads of the call's number,
//! architecture and arguments, tests, and returns, with jumps to named labels resolved when
//! the program is finished.

use std::collections::HashMap;

use seccompiler::sock_filter;

const LOAD_WORD: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
const AND: u16 = 0x54; // BPF_ALU | BPF_AND | BPF_K
const JUMP_IF_EQUAL: u16 = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const JUMP_IF_SET: u16 = 0x45; // BPF_JMP | BPF_JSET | BPF_K
const RETURN: u16 = 0x06; // BPF_RET | BPF_K

/// Where a jump goes: on to the next instruction, or to a label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum To {
    /// The next instruction.
    Next,
    /// The instruction after this label.
    Label(&'static str),
}

/// A program being written.
#[derive(Debug, Default)]
pub(super) struct Asm {
    ops: Vec<(sock_filter, To, To)>,
    labels: HashMap<&'static str, usize>,
}

impl Asm {
    /// Loads the 32-bit word at `offset` of `seccomp_data`.
    pub(super) fn load(&mut self, offset: u32) -> &mut Self {
        self.push(LOAD_WORD, offset, To::Next, To::Next)
    }

    /// Loads the low 32 bits of argument `index` (as the kernel reads `int` arguments).
    pub(super) fn load_arg(&mut self, index: u32) -> &mut Self {
        self.load(ARGS_OFFSET + 8 * index)
    }

    /// Keeps only the bits of `mask`.
    pub(super) fn and(&mut self, mask: u32) -> &mut Self {
        self.push(AND, mask, To::Next, To::Next)
    }

    /// Jumps to `yes` when the loaded word equals `value`, else to `no`.
    pub(super) fn equals(&mut self, value: u32, yes: To, no: To) -> &mut Self {
        self.push(JUMP_IF_EQUAL, value, yes, no)
    }

    /// Jumps to `yes` when the loaded word has any bit of `bits`, else to `no`.
    pub(super) fn any_of(&mut self, bits: u32, yes: To, no: To) -> &mut Self {
        self.push(JUMP_IF_SET, bits, yes, no)
    }

    /// Ends the program's run with `action`.
    pub(super) fn ret(&mut self, action: u32) -> &mut Self {
        self.push(RETURN, action, To::Next, To::Next)
    }

    /// Names the next instruction.
    pub(super) fn label(&mut self, name: &'static str) -> &mut Self {
        self.labels.insert(name, self.ops.len());
        self
    }

    fn push(&mut self, code: u16, k: u32, yes: To, no: To) -> &mut Self {
        self.ops.push((sock_filter { code, jt: 0, jf: 0, k }, yes, no));
        self
    }

    /// The program, with every jump resolved.
    ///
    /// # Errors
    ///
    /// A label that is unknown, behind the jump, or too far ahead (a jump spans at most 255).
    pub(super) fn finish(self) -> Result<Vec<sock_filter>, String> {
        let offset = |at: usize, to: To| -> Result<u8, String> {
            let To::Label(name) = to else { return Ok(0) };
            let target = *self.labels.get(name).ok_or_else(|| format!("no label {name}"))?;
            let span =
                target.checked_sub(at + 1).ok_or_else(|| format!("label {name} is behind"))?;
            u8::try_from(span).map_err(|_| format!("label {name} is {span} instructions ahead"))
        };
        let mut program = Vec::with_capacity(self.ops.len());
        for (at, (op, yes, no)) in self.ops.iter().enumerate() {
            let (jt, jf) = (offset(at, *yes)?, offset(at, *no)?);
            program.push(sock_filter { code: op.code, jt, jf, k: op.k });
        }
        Ok(program)
    }
}

/// Where `seccomp_data` holds the call's number, its architecture and its arguments.
pub(super) const NR_OFFSET: u32 = 0;
/// The architecture's offset.
pub(super) const ARCH_OFFSET: u32 = 4;
const ARGS_OFFSET: u32 = 16;

#[cfg(test)]
mod tests {
    use super::{Asm, To};

    #[test]
    fn jumps_resolve_to_their_labels_and_bad_ones_are_errors() {
        let mut asm = Asm::default();
        asm.load(0).equals(7, To::Label("deny"), To::Next).ret(1).label("deny").ret(2);
        let program = asm.finish().expect("a program");
        assert_eq!((program[1].jt, program[1].jf), (1, 0));
        let mut bad = Asm::default();
        bad.equals(1, To::Label("nowhere"), To::Next);
        assert!(bad.finish().is_err());
    }
}
