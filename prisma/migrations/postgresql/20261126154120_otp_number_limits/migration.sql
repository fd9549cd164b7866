-- CreateIndex
CREATE INDEX "KycOtpRequest_merchantId_mode_createdAt_idx" ON "KycOtpRequest"("merchantId", "mode", "createdAt");

-- CreateIndex
CREATE INDEX "KycOtpRequest_aadhaarHash_mode_createdAt_idx" ON "KycOtpRequest"("aadhaarHash", "mode", "createdAt");
