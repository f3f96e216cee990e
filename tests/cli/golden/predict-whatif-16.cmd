predict --ranks 16 --alpha 2e-6 --bandwidth 12.5e9 --gamma 1e-11 --bytes 4K,1M,256M
