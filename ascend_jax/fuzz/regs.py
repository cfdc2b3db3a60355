"""The one register randomisation of the differential engine: every family generator draws the
vector mask, mask mode, CMPMASK, CTRL and the gather-mask count register through ``draw``, so every
API sees the same register distribution (the call-form specific Counter-mode count is then
written over ``vmask`` by the generator that needs it).

The vectorised generators (``Family.generate_many``) draw the same distributions for many cases at
once with the twins in ``families/draw.py`` (``draw_many``, ``lane_bits_many``,
``random_ctrl_many``; the mask argument inside the generators): a change of rule here is made there
too (tests/test_fuzz_vectorised_draw.py compares the two). The scalar helpers do not call the twins:
one case through NumPy arrays costs ~25x the scalar draw, the other families' drawing time."""

import dataclasses

LANE_KINDS = ("all", "zero", "single", "prefix", "random")


def lane_bits(rng, L, reg_bits):
    """A lane bit set as a Python int: all lanes, none, one, a prefix or random bits (only the
    bits a repeat of ``L`` lanes and the ``reg_bits``-bit register have)."""
    kind = LANE_KINDS[int(rng.integers(len(LANE_KINDS)))]
    v = 0
    if kind == "all":
        v = (1 << L) - 1
    elif kind == "single":
        v = 1 << int(rng.integers(L))
    elif kind == "prefix":
        v = (1 << int(rng.integers(L + 1))) - 1
    elif kind == "random":  # each lane's bit 0 or 1 with probability 1/2 (32 lanes a draw)
        v = sum(int(rng.integers(0, 1 << 32)) << (32 * k) for k in range(-(-L // 32)))
    return v & ((1 << min(L, reg_bits)) - 1)


def words8(v):
    """A register value as 8 uint32 words, low word first (the vmask layout)."""
    return tuple(int((int(v) >> (32 * i)) & 0xFFFFFFFF) for i in range(8))


def reset_ctrl(p):
    return (p.ctrl_reset_value & 0xFFFFFFFF, (p.ctrl_reset_value >> 32) & 0xFFFFFFFF)


def random_ctrl(rng, p):
    """CTRL at its reset value with each modelled control bit (float saturation, integer
    saturation) flipped with probability 1/2."""
    c = list(reset_ctrl(p))
    for bit in (p.float_saturation_ctrl_bit, p.int_saturation_ctrl_bit):
        if bit >= 0 and rng.random() < 0.5:
            c[bit // 32] ^= 1 << (bit % 32)
    return tuple(c)


@dataclasses.dataclass(frozen=True)
class Registers:
    vmask: tuple  # 8 uint32 words
    mask_mode: int
    cmpmask: tuple  # 4 uint32 words
    ctrl: tuple  # 2 uint32 words
    rsvd_cnt: int

    def mask_fields(self, vmask=None):
        """The fields of a case dataclass holding the vector mask and CTRL only; ``vmask``: the
        register's words where the call's draw rewrote them (``draw_mask``: the Counter count)."""
        vmask = self.vmask if vmask is None else tuple(int(x) for x in vmask)
        return dict(vmask=vmask, mask_mode=self.mask_mode, ctrl=self.ctrl)

    def case_fields(self):
        """The register fields of a case dataclass (``rsvd_init`` holds the GatherMask count)."""
        return dict(
            vmask=self.vmask,
            mask_mode=self.mask_mode,
            cmpmask=self.cmpmask,
            ctrl=self.ctrl,
            rsvd_init=self.rsvd_cnt,
        )


def draw(rng, p, L, counter_ok=True, counter_share=0.2):
    """Random registers for one case on profile ``p`` (``L`` lanes per repeat of the case's T).
    Counter mode only where the profile has it and ``counter_ok``."""
    mask_mode = 0
    u = rng.random()
    if counter_ok and p.counter_mode != "unsupported" and u < counter_share:
        mask_mode = 1
    vm = lane_bits(rng, L, p.vector_mask_bits)
    cmpmask = tuple(int(rng.integers(0, 2**32)) for _ in range(4))
    return Registers(
        vmask=words8(vm),
        mask_mode=mask_mode,
        cmpmask=cmpmask,
        ctrl=random_ctrl(rng, p),
        rsvd_cnt=int(rng.integers(0, 1000)),
    )


def draw_mask(rng, p, L, form, regs, count_bound):
    """The mask argument of a random call of ``form`` (count | count_register | continuous |
    bitwise | register) with registers ``regs`` (``draw``): a continuous mask, or the bitwise words
    (the vector mask register's lanes), as uint64 words low first. In Counter mode a count drawn up to
    ``count_bound`` is the mask and the register's value (non-zero for a mask argument where the
    profile faults a zero mask). Returns (mask or None, vmask as 8 uint32 words, the Counter-mode
    count or None)."""
    vmask = list(regs.vmask)
    count_reg = None
    if regs.mask_mode == 1:
        lo = 1 if (p.zero_mask == "error" and form in ("continuous", "bitwise")) else 0
        count_reg = int(rng.integers(lo, count_bound + 1))
    mask = None
    if form == "continuous":
        mask = int(rng.choice([0, 1, L // 2, L - 1, L, L + 5, int(rng.integers(0, L + 1))]))
        if p.zero_mask == "error" and mask == 0:
            mask = 1
        if count_reg is not None:
            mask = count_reg
    elif form == "bitwise":
        nw = p.vector_mask_bits // 64
        words = [vmask[2 * i] | (vmask[2 * i + 1] << 32) for i in range(nw)]
        if count_reg is not None:
            words = [count_reg] + [0] * (nw - 1)
        if p.zero_mask == "error" and not any(words):
            words[0] = 1
        mask = tuple(words)
    if count_reg is not None:
        vmask = [count_reg & 0xFFFFFFFF, count_reg >> 32, 0, 0, 0, 0, 0, 0]
    return mask, vmask, count_reg
