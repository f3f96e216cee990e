predict --preset dgx-h100-superpod-su --bytes 64K --algo nccl,collnet --engine analytic
